// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture/headerbuffer.h"

#include "capture/mappedfile.h"

#include <cstring>

#include <sys/mman.h>
#include <unistd.h>

namespace dimscope {

std::unique_ptr<HeaderBuffer> HeaderBuffer::read(const MappedFile &file, qint64 offset, qint64 length, QString *error)
{
    std::unique_ptr<HeaderBuffer> b(new HeaderBuffer);
    b->m_mapped = size_t(std::max<qint64>(length, 1));
    void *memory = mmap(nullptr, b->m_mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED) {
        *error = QStringLiteral("cannot allocate %1 bytes for the header").arg(length);
        b->m_mapped = 0;
        return nullptr;
    }
    b->m_data = static_cast<char *>(memory);
    b->m_size = length;
    // Chunk by chunk, so that a header that is no JSON text (the hole of a sparse file
    // declared as a 100 MB header reads as zeros) is refused at its first chunk rather
    // than after being read whole.
    for (qint64 done = 0; done < length;) {
        const qint64 chunk = std::min(kChunkBytes, length - done);
        char *to = b->m_data + done;
#ifdef MADV_POPULATE_WRITE
        // The pages are all written by the read below: faulting them in one go costs
        // less than one fault per page inside pread (when the kernel has it, 5.14+).
        madvise(to, size_t(chunk), MADV_POPULATE_WRITE);
#endif
        QString why;
        if (!file.readAt(offset + done, chunk, to, &why)) {
            *error = QStringLiteral("cannot read the header: %1").arg(why);
            return nullptr;
        }
        if (const void *nul = std::memchr(to, 0, size_t(chunk))) {
            // JSON text holds no NUL byte, not even in a string (it is written \u0000).
            *error = QStringLiteral("header is not valid JSON: at byte %1: a NUL byte")
                         .arg(offset + done + (static_cast<const char *>(nul) - to));
            return nullptr;
        }
        done += chunk;
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
