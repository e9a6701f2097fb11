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

QByteArray markerText(qint64 pid)
{
    return QByteArrayLiteral("dimscope export staging folder of pid ") + QByteArray::number(pid) + '\n';
}

QByteArray markerContent(const QString &marker)
{
    QFile f(marker);
    return f.open(QIODevice::ReadOnly) ? f.read(200) : QByteArray();
}

// What the folder holds besides its marker, then the marker, then the folder (rmdir:
// nothing that appeared meanwhile). Stopped anywhere, it leaves the whole marker or an
// empty folder, both still recognised as the pid's (the worker's remove_staging_folder
// keeps the same order).
void removeMarkerLast(const QString &path)
{
    const QString marker = path + QLatin1Char('/') + QLatin1String(kMarker);
    const QFileInfoList entries = QDir(path).entryInfoList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
    for (const QFileInfo &entry : entries) {
        if (entry.fileName() == QLatin1String(kMarker))
            continue;
        if (entry.isDir() && !entry.isSymLink())
            QDir(entry.filePath()).removeRecursively();
        else
            QFile::remove(entry.filePath());
    }
    QFile::remove(marker);
    QDir().rmdir(path);
}
} // namespace

bool StagingFolders::isStagingFolder(const QString &path, qint64 pid)
{
    const QString marker = path + QLatin1Char('/') + QLatin1String(kMarker);
    if (!isRealKind(path, S_IFDIR) || !isRealKind(marker, S_IFREG))
        return false;
    return markerContent(marker) == markerText(pid);
}

bool StagingFolders::isUnfinishedStagingFolder(const QString &path, qint64 pid)
{
    if (!isRealKind(path, S_IFDIR))
        return false;
    const QStringList entries = QDir(path).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
    if (entries.isEmpty())
        return true;
    const QString marker = path + QLatin1Char('/') + QLatin1String(kMarker);
    if (entries != QStringList{QLatin1String(kMarker)} || !isRealKind(marker, S_IFREG))
        return false;
    const QByteArray written = markerContent(marker);
    return written.size() < markerText(pid).size() && markerText(pid).startsWith(written);
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
            // An unfinished one holds at most (part of) the marker: only that goes.
            if (isStagingFolder(path, pid) || isUnfinishedStagingFolder(path, pid))
                removeMarkerLast(path);
        }
    }
}

} // namespace dimscope
