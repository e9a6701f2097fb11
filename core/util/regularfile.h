// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>

#include <optional>

namespace dimscope {

// Opens a file the user named for reading, refusing anything but a regular file.
//
// Why: open(2) on a FIFO blocks until a writer appears (the CLI would hang), a
// character device may never end (/dev/zero, /dev/urandom) and a directory opens
// fine but reads as nothing. Every reader of user-given paths (captures, .pt2
// archives, projects, constraint files) goes through here.
//
// The check is made on the opened descriptor (fstat), not on the path before it,
// so a path swapped for a FIFO between a check and the open still cannot block:
// the descriptor is opened with O_NONBLOCK, which returns at once for a FIFO.
//
// Errors are one line saying what is wrong ("is a FIFO (named pipe), not a regular
// file", "no such file", "cannot open: Permission denied"), without the file name:
// callers prefix it in their own style.
class RegularFile
{
public:
    // A read-only descriptor the caller owns (close(2) it), or -1 with *error.
    static int openDescriptor(const QString &path, QString *error);
    // Opens `file` read-only over such a descriptor (the QFile owns and closes it);
    // its fileName() is `path`.
    static bool open(QFile &file, const QString &path, QString *error);
    // The whole file when it is at most maxBytes long. Reads at most maxBytes + 1
    // bytes whatever the file grows to while it is read.
    static std::optional<QByteArray> readAll(const QString &path, qint64 maxBytes, QString *error);
    // What a file of this st_mode is, for messages: "a directory", "a FIFO (named pipe)",
    // "a character device", "a block device", "a socket".
    static QString kindOf(unsigned int mode);
};

} // namespace dimscope
