// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/buildinfo.h"

#include <torch/csrc/api/include/torch/version.h>

#include <QtGlobal>

namespace dimscope {

QString BuildInfo::dimscopeVersion() { return QStringLiteral(DIMSCOPE_VERSION); }

QString BuildInfo::qtVersion() { return QString::fromLatin1(qVersion()); }

QString BuildInfo::libtorchVersion()
{
    return QStringLiteral("%1.%2.%3").arg(TORCH_VERSION_MAJOR).arg(TORCH_VERSION_MINOR).arg(TORCH_VERSION_PATCH);
}

QString BuildInfo::sourceDir() { return QStringLiteral(DIMSCOPE_SOURCE_DIR); }

} // namespace dimscope
