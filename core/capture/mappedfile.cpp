#include "capture/mappedfile.h"

#include <QFileInfo>

#include <sys/mman.h>
#include <unistd.h>

namespace dimscope {

std::unique_ptr<MappedFile> MappedFile::open(const QString &path, QString *error)
{
    std::unique_ptr<MappedFile> m(new MappedFile);
    m->m_file.setFileName(path);
    const QFileInfo info(path);
    if (!info.exists()) {
        *error = QStringLiteral("no such file");
        return nullptr;
    }
    if (info.isDir()) {
        *error = QStringLiteral("is a directory, not a capture file");
        return nullptr;
    }
    if (!m->m_file.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot open: %1").arg(m->m_file.errorString());
        return nullptr;
    }
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

void MappedFile::release(qint64 offset, qint64 length)
{
    const qint64 page = sysconf(_SC_PAGESIZE);
    // Whole pages around the range: the rest of those pages is file bytes that were
    // never written to, so dropping them loses nothing (they are read back on use).
    const qint64 begin = offset / page * page;
    const qint64 end = std::min((offset + length + page - 1) / page * page, m_size);
    if (end > begin)
        madvise(m_data + begin, size_t(end - begin), MADV_DONTNEED);
}

void MappedFile::releaseBefore(qint64 end)
{
    const qint64 page = sysconf(_SC_PAGESIZE);
    const qint64 stop = std::min(end, m_size) / page * page;
    if (stop > 0)
        madvise(m_data, size_t(stop), MADV_DONTNEED);
}

} // namespace dimscope
