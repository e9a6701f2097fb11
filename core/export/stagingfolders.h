// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>

namespace dimscope {

// The staging folders the export worker saves a .pt2 through (python/dimscope/worker/exporter.py):
// a folder ".dimscope-save-PID-XXXXXXXX" beside the output, whose first file is the
// marker "dimscope-staging-folder.marker" holding "dimscope export staging folder of pid
// PID\n". A worker killed while saving leaves one behind; the client that killed it
// removes it once the worker is reaped, and one it was killed in making too.
//
// Only a real folder (not a symbolic link) with that name and that marker for that pid
// is removed: a folder or file of another program that happens to look similar
// (".notes.99998.tmp", ".dimscope-save-42" without the marker) is never touched.
class StagingFolders
{
public:
    // Removes the staging folders of worker `pid` in each of `outputFolders`.
    static void removeLeftBy(qint64 pid, const QStringList &outputFolders);
    // Whether `path` is such a folder of `pid`.
    static bool isStagingFolder(const QString &path, qint64 pid);
    // A folder of that name the worker was killed in making: between its mkdir and the
    // marker's last byte it holds nothing, or only the marker, part-written. Nothing
    // else is in it, so removing it takes nothing of anyone's.
    static bool isUnfinishedStagingFolder(const QString &path, qint64 pid);
};

} // namespace dimscope
