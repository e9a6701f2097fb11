// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Test helpers for readers fed hostile files: FIFOs (which block a plain open(2)
// until a writer appears) and files truncated while a reader holds them open.
// Header-only; tests get the include path by linking dimscope_testcommon.

#include <QFile>
#include <QString>

#include <chrono>
#include <functional>
#include <future>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dimscope::test {

inline bool makeFifo(const QString &path)
{
    QFile::remove(path);
    return ::mkfifo(QFile::encodeName(path).constData(), 0600) == 0;
}

// Runs `read` (which is given the FIFO) on a thread. Returns true when it had not
// returned after `ms`: the reader blocked. It is then released by opening the FIFO
// for writing and closing it again (the reader's open returns and it reads end of
// file), so that a failing test ends instead of hanging the suite.
inline bool blocksOnFifo(const QString &fifo, const std::function<void()> &read, int ms = 3000)
{
    std::promise<void> done;
    std::future<void> finished = done.get_future();
    std::thread reader([&] {
        read();
        done.set_value();
    });
    const bool blocked = finished.wait_for(std::chrono::milliseconds(ms)) == std::future_status::timeout;
    while (finished.wait_for(std::chrono::milliseconds(50)) == std::future_status::timeout) {
        const int fd = ::open(QFile::encodeName(fifo).constData(), O_WRONLY | O_NONBLOCK);
        if (fd >= 0)
            ::close(fd);
    }
    reader.join();
    return blocked;
}

// Cuts the file at `size` bytes in place (the inode stays: an open mapping sees it).
inline bool truncateFile(const QString &path, qint64 size)
{
    return ::truncate(QFile::encodeName(path).constData(), off_t(size)) == 0;
}

} // namespace dimscope::test
