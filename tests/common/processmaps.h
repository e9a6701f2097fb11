// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What this process has mapped (/proc/self/maps): whether LibTorch was loaded, for
// the suites that check the tensor engine plugin is loaded only when needed.

#include <QFile>
#include <QString>

namespace dimscope::test {

// Whether a mapped file's path contains `part` (e.g. "libtorch").
inline bool processMaps(const QByteArray &part)
{
    QFile maps(QStringLiteral("/proc/self/maps"));
    return maps.open(QIODevice::ReadOnly) && maps.readAll().contains(part);
}

} // namespace dimscope::test
