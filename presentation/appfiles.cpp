// SPDX-License-Identifier: GPL-3.0-or-later
#include "appfiles.h"

#include "util/buildinfo.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace dimscope {

namespace {

// The first candidate that exists, installed places first: an installed binary must
// not pick up a source tree that happens to sit at its build-time path.
QString firstExisting(const QStringList &candidates)
{
    for (const QString &c : candidates) {
        if (QFileInfo::exists(c))
            return QDir::cleanPath(c);
    }
    return {};
}

} // namespace

QString AppFiles::demoProject()
{
    const QString appDir = QCoreApplication::applicationDirPath();
    return firstExisting({appDir + QStringLiteral("/../share/dimscope/demo/demo.dimscope"),
                          BuildInfo::sourceDir() + QStringLiteral("/resources/demo/demo.dimscope")});
}

QString AppFiles::documentationDir()
{
    const QString appDir = QCoreApplication::applicationDirPath();
    const QString dir = firstExisting({appDir + QStringLiteral("/../share/doc/dimscope/docs/cli.md"),
                                       BuildInfo::sourceDir() + QStringLiteral("/docs/cli.md")});
    return dir.isEmpty() ? QString() : QFileInfo(dir).absolutePath();
}

} // namespace dimscope
