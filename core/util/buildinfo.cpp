// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/buildinfo.h"

#include <QtGlobal>

namespace dimscope {

QString BuildInfo::dimscopeVersion() { return QStringLiteral(DIMSCOPE_VERSION); }

QString BuildInfo::qtVersion() { return QString::fromLatin1(qVersion()); }

QString BuildInfo::libtorchVersion() { return QStringLiteral(DIMSCOPE_LIBTORCH_VERSION); }

QString BuildInfo::sourceDir() { return QStringLiteral(DIMSCOPE_SOURCE_DIR); }

} // namespace dimscope
