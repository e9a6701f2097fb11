// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/stagingfolders.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <sys/stat.h>

namespace dimscope {

namespace {
const char kMarker[] = "dimscope-staging-folder.marker";

bool isRealKind(const QString &path, mode_t kind)
{
    struct stat st;
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 && (st.st_mode & S_IFMT) == kind;
}
} // namespace

bool StagingFolders::isStagingFolder(const QString &path, qint64 pid)
{
    const QString marker = path + QLatin1Char('/') + QLatin1String(kMarker);
    if (!isRealKind(path, S_IFDIR) || !isRealKind(marker, S_IFREG))
        return false;
    QFile f(marker);
    if (!f.open(QIODevice::ReadOnly))
        return false;
    return f.read(200) == QByteArrayLiteral("dimscope export staging folder of pid ") + QByteArray::number(pid) + '\n';
}

void StagingFolders::removeLeftBy(qint64 pid, const QStringList &outputFolders)
{
    if (pid <= 0)
        return;
    const QString prefix = QStringLiteral(".dimscope-save-%1-").arg(pid);
    for (const QString &folder : outputFolders) {
        const QDir dir(folder);
        const QStringList names = dir.entryList({prefix + QLatin1Char('*')}, QDir::Dirs | QDir::Hidden | QDir::NoDotAndDotDot);
        for (const QString &name : names) {
            const QString path = dir.filePath(name);
            if (isStagingFolder(path, pid))
                QDir(path).removeRecursively();
        }
    }
}

} // namespace dimscope
