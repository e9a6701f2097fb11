// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/regularfile.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dimscope {

namespace {

QString notRegular(mode_t mode)
{
    return QStringLiteral("is %1, not a regular file").arg(RegularFile::kindOf(mode));
}

QString systemError(int code)
{
    if (code == ENOENT)
        return QStringLiteral("no such file");
    return QStringLiteral("cannot open: %1").arg(QString::fromLocal8Bit(std::strerror(code)));
}

} // namespace

// What a non-regular file is, for "is a FIFO (named pipe), not a regular file".
QString RegularFile::kindOf(unsigned int mode)
{
    if (S_ISDIR(mode))
        return QStringLiteral("a directory");
    if (S_ISFIFO(mode))
        return QStringLiteral("a FIFO (named pipe)");
    if (S_ISCHR(mode))
        return QStringLiteral("a character device");
    if (S_ISBLK(mode))
        return QStringLiteral("a block device");
    if (S_ISSOCK(mode))
        return QStringLiteral("a socket");
    if (S_ISREG(mode))
        return QStringLiteral("a regular file");
    return QStringLiteral("not a file");
}

int RegularFile::openDescriptor(const QString &path, QString *error)
{
    const QByteArray name = QFile::encodeName(path);
    // stat first only for the message: open(2) of a socket fails with ENXIO, whose
    // text ("No such device or address") would not say what the path is.
    struct stat st;
    if (::stat(name.constData(), &st) != 0) {
        *error = systemError(errno);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        *error = notRegular(st.st_mode);
        return -1;
    }
    int fd;
    do {
        fd = ::open(name.constData(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        *error = systemError(errno);
        return -1;
    }
    // The decision is made on what was opened: the path may have changed since stat.
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        *error = notRegular(st.st_mode);
        ::close(fd);
        return -1;
    }
    // Blocking reads from here on (O_NONBLOCK means nothing for a regular file, but a
    // descriptor handed on to other libraries should look like an ordinary one).
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0)
        ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
}

bool RegularFile::open(QFile &file, const QString &path, QString *error)
{
    const int fd = openDescriptor(path, error);
    if (fd < 0)
        return false;
    file.setFileName(path);
    if (!file.open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
        *error = QStringLiteral("cannot open: %1").arg(file.errorString());
        ::close(fd);
        return false;
    }
    return true;
}

std::optional<QByteArray> RegularFile::readAll(const QString &path, qint64 maxBytes, QString *error)
{
    QFile file;
    if (!open(file, path, error))
        return std::nullopt;
    if (file.size() > maxBytes) {
        *error = QStringLiteral("file is %1 bytes long, more than the %2 this reader accepts").arg(file.size()).arg(maxBytes);
        return std::nullopt;
    }
    // Read to the end rather than trusting size(): a file growing while it is read
    // is stopped at the limit instead of filling memory.
    QByteArray bytes;
    bytes.reserve(qsizetype(file.size()));
    char chunk[1 << 16];
    for (;;) {
        const qint64 got = file.read(chunk, sizeof chunk);
        if (got < 0) {
            *error = QStringLiteral("cannot read: %1").arg(file.errorString());
            return std::nullopt;
        }
        if (got == 0)
            break;
        if (bytes.size() + got > maxBytes) {
            *error = QStringLiteral("file grew past the %1 bytes this reader accepts while it was read").arg(maxBytes);
            return std::nullopt;
        }
        bytes.append(chunk, qsizetype(got));
    }
    return bytes;
}

} // namespace dimscope
