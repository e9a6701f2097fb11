// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QFile>
#include <QString>

#include <memory>

namespace dimscope {

// A capture file held open and mapped read-only into memory for as long as this
// object lives. Captures share one through a QSharedPointer, so tensor views stay
// valid while any copy of the Capture (or any LibTorch view made from it) exists.
//
// The mapping is private (copy-on-write): a stray write through a tensor view can
// never reach the file on disk; it only changes this process's copy.
//
// Files that shrink under us. A mapping shows the file's inode: the recorder
// replaces captures atomically (temp file + rename), so an open capture keeps its
// old bytes; but a file truncated in place (by another program, or a full disk
// that a copy gave up on) makes every read of its lost pages raise SIGBUS, which
// kills the process. So the mapping is only the zero-copy way in for callers that
// accept that risk (LibTorch views); dimscope's own readers never touch it:
// - the header and manifest are read with pread() into memory (HeaderBuffer);
// - tensorView() checks the file's current size before handing out a view;
// - tensor statistics read their chunks with readAt() (pread), which reports a
//   file that ends early as an error instead of faulting.
class MappedFile
{
public:
    // Opens (a regular file only: see RegularFile) and maps the whole file; on
    // failure returns nullptr and sets *error (without the file name: the caller
    // prefixes it).
    static std::unique_ptr<MappedFile> open(const QString &path, QString *error);
    ~MappedFile();

    MappedFile(const MappedFile &) = delete;
    MappedFile &operator=(const MappedFile &) = delete;

    const uchar *data() const { return m_data; }
    qint64 size() const { return m_size; } // when opened
    QString path() const { return m_file.fileName(); }

    // The file's size now (fstat of the open descriptor), or -1 when it cannot be known.
    qint64 currentSize() const;
    // Reads [offset, offset + length) from the file itself (pread, not the mapping);
    // thread-safe. False with *error when the file ends before (it was truncated
    // since it was opened) or the read fails.
    bool readAt(qint64 offset, qint64 length, void *out, QString *error) const;
    // The message for bytes [begin, end) that the file no longer holds.
    QString shrankError(qint64 begin, qint64 end) const;

private:
    MappedFile() = default;
    QFile m_file;
    uchar *m_data = nullptr;
    qint64 m_size = 0;
};

} // namespace dimscope
