// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/atomicfile.h"

#include "util/outputtarget.h"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <cerrno>

#include <unistd.h>

namespace dimscope {

namespace {

// The reason a write failed: Qt's own text when it has one (it carries strerror),
// else the system's.
QString reasonOf(const QSaveFile &file, int errnoAfter)
{
    const QString qt = file.errorString();
    if (file.error() != QFileDevice::NoError && !qt.isEmpty() && qt != QLatin1String("Unknown error"))
        return qt;
    return qt_error_string(errnoAfter != 0 ? errnoAfter : EIO);
}

// Why QSaveFile could not start: the system's word for the folder (a read-only file
// system, no permission) when the folder is the cause, where Qt says only "Existing
// file … is not writable".
QString openFailure(const QSaveFile &file, const QString &path)
{
    const QByteArray folder = QFile::encodeName(QFileInfo(path).absolutePath());
    if (::access(folder.constData(), W_OK | X_OK) != 0)
        return qt_error_string(errno);
    return file.errorString();
}

} // namespace

bool AtomicFile::write(const QString &path, const QByteArray &bytes, QString *error)
{
    // Before QSaveFile creates its temporary file beside the target: never a rename
    // over a device or a FIFO, never a file in /dev (/dev/null's folder).
    const QString refused = OutputTarget::placeReason(path);
    if (!refused.isEmpty()) {
        *error = refused;
        return false;
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        *error = openFailure(file, path);
        return false;
    }
    errno = 0;
    bool written = file.write(bytes) == bytes.size();
    // What QSaveFile buffered must reach the file now, where a failure can still be
    // seen: commit() would report success over it (Qt 6.4).
    written = written && file.flush() && file.error() == QFileDevice::NoError;
    // A file system that allocates late (delayed allocation, NFS, quotas) reports a
    // full disk only when the data is synced.
    int syncErrno = 0;
    if (written && ::fsync(file.handle()) != 0) {
        syncErrno = errno;
        written = false;
    }
    if (!written) {
        *error = syncErrno != 0 ? qt_error_string(syncErrno) : reasonOf(file, errno);
        file.cancelWriting(); // the temporary file is removed; the target is untouched
        return false;
    }
    if (!file.commit()) {
        *error = reasonOf(file, errno);
        return false;
    }
    return true;
}

} // namespace dimscope
