// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

namespace dimscope {

// Writes a whole file atomically and says so only when every byte reached the disk:
// the one way dimscope saves a file (projects, constraint sets, export reports, CSV
// tables, plot images).
//
// Why not QSaveFile alone: in Qt 6.4, commit() returns true when the last buffered
// write failed (ENOSPC on a full disk) and renames the short or empty temporary file
// over the target, so a "successful" save could empty the user's project. Here the
// bytes are written, flush()ed and fsync()ed, error() is checked, and only then is
// the temporary file committed; on any failure it is cancelled (QSaveFile removes it)
// and the target stays exactly as it was.
//
// An existing target that is not a regular file (a device such as /dev/null, a FIFO,
// a folder), or one in a folder of device nodes, is refused before anything is created
// beside it (OutputTarget::placeReason): renaming over a device node would replace it
// with a regular file.
//
// Errors are one line with the reason ("No space left on device", "is a character
// device, not a regular file"), without the file name: callers name the file in their
// own style, as for RegularFile.
class AtomicFile
{
public:
    static bool write(const QString &path, const QByteArray &bytes, QString *error);
};

} // namespace dimscope
