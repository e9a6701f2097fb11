// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/outputtarget.h"

#include "util/regularfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace dimscope {

namespace {

bool statPath(const QString &path, struct stat *st)
{
    return ::stat(QFile::encodeName(path).constData(), st) == 0;
}

// A path that does not exist (yet): its folder's identity and its name.
bool sameNameInSameFolder(const QString &a, const QString &b)
{
    const QFileInfo fa(a), fb(b);
    if (fa.fileName() != fb.fileName())
        return false;
    struct stat da, db;
    if (!statPath(fa.absolutePath(), &da) || !statPath(fb.absolutePath(), &db))
        return QDir::cleanPath(fa.absoluteFilePath()) == QDir::cleanPath(fb.absoluteFilePath());
    return da.st_dev == db.st_dev && da.st_ino == db.st_ino;
}

// A character or block device in `folder`: /dev (devtmpfs, or a container's tmpfs),
// /dev/pts. The entries' types come with readdir; only those it does not give are
// stat'ed, so a large ordinary folder costs one pass over its names.
bool holdsDeviceNodes(const QString &folder)
{
    const QByteArray name = QFile::encodeName(folder);
    DIR *dir = ::opendir(name.constData());
    if (!dir)
        return false;
    bool found = false;
    while (const dirent *entry = ::readdir(dir)) {
        unsigned char type = entry->d_type;
        if (type == DT_UNKNOWN) {
            struct stat st;
            const QByteArray child = name + '/' + entry->d_name;
            if (::lstat(child.constData(), &st) != 0)
                continue;
            type = S_ISCHR(st.st_mode) ? DT_CHR : S_ISBLK(st.st_mode) ? DT_BLK : DT_REG;
        }
        if (type == DT_CHR || type == DT_BLK) {
            found = true;
            break;
        }
    }
    ::closedir(dir);
    return found;
}

} // namespace

bool OutputTarget::sameFile(const QString &a, const QString &b)
{
    struct stat sa, sb;
    const bool hasA = statPath(a, &sa), hasB = statPath(b, &sb);
    if (hasA && hasB)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (hasA || hasB)
        return false;
    return sameNameInSameFolder(a, b);
}

QString OutputTarget::placeReason(const QString &path)
{
    struct stat st;
    // stat follows symlinks: a link to /dev/null is a device here, as it is to a write.
    if (statPath(path, &st) && !S_ISREG(st.st_mode))
        return QStringLiteral("is %1, not a regular file").arg(RegularFile::kindOf(st.st_mode));
    const QString folder = QFileInfo(path).absolutePath();
    if (holdsDeviceNodes(folder))
        return QStringLiteral("is in %1, a folder of device nodes").arg(folder);
    return QString();
}

QString OutputTarget::folderReason(const QString &path)
{
    const QString folder = QFileInfo(path).absolutePath();
    struct stat st;
    if (!statPath(folder, &st)) {
        const int code = errno;
        if (code == ENOENT || code == ENOTDIR)
            return QStringLiteral("is in %1, a folder that does not exist (create it first)").arg(folder);
        return QStringLiteral("is in %1, a folder that cannot be looked up (%2)").arg(folder, qt_error_string(code));
    }
    if (!S_ISDIR(st.st_mode))
        return QStringLiteral("is in %1, which is %2, not a folder").arg(folder, RegularFile::kindOf(st.st_mode));
    // access() as the real user: a read-only mount (EROFS) is caught even for root.
    const QByteArray name = QFile::encodeName(folder);
    if (::access(name.constData(), W_OK | X_OK) != 0) {
        const int code = errno;
        return QStringLiteral("is in %1, a folder this user cannot write to (%2)").arg(folder, qt_error_string(code));
    }
    return QString();
}

QString OutputTarget::check(const Input &output, const QList<Input> &inputs)
{
    const QString named = QStringLiteral("%1 %2").arg(output.role, output.path).trimmed();
    const QString reason = placeReason(output.path);
    if (!reason.isEmpty())
        return QStringLiteral("%1 %2; dimscope writes its outputs only as regular files in ordinary folders").arg(named, reason);
    // After the place's checks, so that `-o /dev/null` is named a device even where
    // /dev is not writable.
    const QString folder = folderReason(output.path);
    if (!folder.isEmpty())
        return QStringLiteral("%1 %2; choose another output file").arg(named, folder);
    for (const Input &input : inputs) {
        if (!input.path.isEmpty() && sameFile(output.path, input.path))
            return QStringLiteral("%1 is the same file as %2 %3, an input of this command; choose another output file")
                .arg(named, input.role, input.path);
    }
    return QString();
}

} // namespace dimscope
