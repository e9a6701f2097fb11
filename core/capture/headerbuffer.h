// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <memory>

namespace dimscope {

class MappedFile;

// A capture's safetensors header (JSON text), read into memory of its own.
//
// Why not parse it through the file mapping: a file truncated while it is parsed
// would raise SIGBUS (see MappedFile), and the manifest is decoded in place, which
// needs writable bytes. The memory is an anonymous mapping rather than a heap
// block so that the parser can hand back the pages of the calls it has read
// (release): peak memory stays about the header's size, as it was when the header
// was parsed in the mapping's copy-on-write pages.
class HeaderBuffer
{
public:
    // Reads [offset, offset + length) of the file with pread, in chunks of kChunkBytes;
    // nullptr and *error (without the file name) when the file ends early, memory is
    // short or a chunk holds a NUL byte, which no JSON text has: a header that is the
    // hole of a sparse file stops the read at its first chunk.
    static std::unique_ptr<HeaderBuffer> read(const MappedFile &file, qint64 offset, qint64 length, QString *error);
    static constexpr qint64 kChunkBytes = qint64(1) << 20;
    ~HeaderBuffer();

    HeaderBuffer(const HeaderBuffer &) = delete;
    HeaderBuffer &operator=(const HeaderBuffer &) = delete;

    char *data() { return m_data; }
    qint64 size() const { return m_size; }
    // Gives back the whole pages that lie inside [begin, end) (pointers into data()).
    // They read as zeros afterwards, so only bytes never read again may go: the
    // manifest text behind the parser, not the tensor names that the header's
    // table still points to.
    void release(const char *begin, const char *end);

private:
    HeaderBuffer() = default;
    char *m_data = nullptr;
    qint64 m_size = 0;
    size_t m_mapped = 0;
};

} // namespace dimscope
