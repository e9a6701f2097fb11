// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture/mappedfile.h"

#include "util/regularfile.h"

#include <cerrno>
#include <cstring>

#include <sys/stat.h>
#include <unistd.h>

namespace dimscope {

std::unique_ptr<MappedFile> MappedFile::open(const QString &path, QString *error)
{
    std::unique_ptr<MappedFile> m(new MappedFile);
    if (!RegularFile::open(m->m_file, path, error))
        return nullptr;
    m->m_size = m->m_file.size();
    if (m->m_size < 8) {
        *error = QStringLiteral("file is %1 bytes long, shorter than the 8-byte safetensors header length").arg(m->m_size);
        return nullptr;
    }
    m->m_data = m->m_file.map(0, m->m_size, QFileDevice::MapPrivateOption);
    if (!m->m_data) {
        *error = QStringLiteral("cannot map the file into memory: %1").arg(m->m_file.errorString());
        return nullptr;
    }
    return m;
}

MappedFile::~MappedFile()
{
    if (m_data)
        m_file.unmap(m_data);
}

qint64 MappedFile::currentSize() const
{
    struct stat st;
    if (::fstat(m_file.handle(), &st) != 0)
        return -1;
    return qint64(st.st_size);
}

QString MappedFile::shrankError(qint64 begin, qint64 end) const
{
    return QStringLiteral("the file is now %1 bytes long, %2 when opened: bytes [%3, %4) are gone (truncated while open?)")
        .arg(currentSize()).arg(m_size).arg(begin).arg(end);
}

bool MappedFile::readAt(qint64 offset, qint64 length, void *out, QString *error) const
{
    char *to = static_cast<char *>(out);
    qint64 done = 0;
    while (done < length) {
        const ssize_t got = ::pread(m_file.handle(), to + done, size_t(length - done), off_t(offset + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            *error = QStringLiteral("cannot read bytes [%1, %2): %3")
                         .arg(offset).arg(offset + length).arg(QString::fromLocal8Bit(std::strerror(errno)));
            return false;
        }
        if (got == 0) {
            *error = shrankError(offset, offset + length);
            return false;
        }
        done += got;
    }
    return true;
}

} // namespace dimscope
