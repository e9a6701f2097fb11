#pragma once

#include <QFile>
#include <QString>

#include <memory>

namespace dimscope {

// A file mapped read-only into memory for as long as this object lives. Captures
// share one through a QSharedPointer, so tensor views stay valid while any copy of
// the Capture (or any LibTorch view made from it) exists.
//
// The mapping is private (copy-on-write): a stray write through a tensor view can
// never reach the file on disk nor fault; it only changes this process's copy.
// Like any mapping it shows the file's inode: the recorder replaces captures
// atomically (temp file + rename), so an open capture keeps its old bytes; a file
// truncated in place while open would make reads of its lost pages fault.
class MappedFile
{
public:
    // Opens and maps the whole file; on failure returns nullptr and sets *error
    // (without the file name: the caller prefixes it).
    static std::unique_ptr<MappedFile> open(const QString &path, QString *error);
    ~MappedFile();

    MappedFile(const MappedFile &) = delete;
    MappedFile &operator=(const MappedFile &) = delete;

    const uchar *data() const { return m_data; }
    uchar *writableData() { return m_data; }
    qint64 size() const { return m_size; }
    QString path() const { return m_file.fileName(); }

    // Tells the kernel the process no longer needs [offset, offset+length) resident:
    // the pages are dropped from RSS and read back from the file if touched again.
    void release(qint64 offset, qint64 length);
    // Same for the whole pages that lie entirely before `end` (the page holding
    // `end` itself is kept).
    void releaseBefore(qint64 end);

private:
    MappedFile() = default;
    QFile m_file;
    uchar *m_data = nullptr;
    qint64 m_size = 0;
};

} // namespace dimscope
