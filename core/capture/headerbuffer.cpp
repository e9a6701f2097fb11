// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture/headerbuffer.h"

#include "capture/mappedfile.h"

#include <sys/mman.h>
#include <unistd.h>

namespace dimscope {

std::unique_ptr<HeaderBuffer> HeaderBuffer::read(const MappedFile &file, qint64 offset, qint64 length, QString *error)
{
    std::unique_ptr<HeaderBuffer> b(new HeaderBuffer);
    b->m_mapped = size_t(std::max<qint64>(length, 1));
    // MAP_POPULATE: the pages are all written by the read below; faulting them in
    // one go costs less than one fault per page inside pread.
    void *memory = mmap(nullptr, b->m_mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (memory == MAP_FAILED) {
        *error = QStringLiteral("cannot allocate %1 bytes for the header").arg(length);
        b->m_mapped = 0;
        return nullptr;
    }
    b->m_data = static_cast<char *>(memory);
    b->m_size = length;
    QString why;
    if (!file.readAt(offset, length, b->m_data, &why)) {
        *error = QStringLiteral("cannot read the header: %1").arg(why);
        return nullptr;
    }
    return b;
}

HeaderBuffer::~HeaderBuffer()
{
    if (m_data)
        munmap(m_data, m_mapped);
}

void HeaderBuffer::release(const char *begin, const char *end)
{
    const qint64 page = sysconf(_SC_PAGESIZE);
    const qint64 first = (std::max<qint64>(begin - m_data, 0) + page - 1) / page * page;
    const qint64 stop = std::min<qint64>(end - m_data, m_size) / page * page;
    if (stop > first)
        madvise(m_data + first, size_t(stop - first), MADV_DONTNEED);
}

} // namespace dimscope
