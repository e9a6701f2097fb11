// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace dimscope {

// Which file a path named when a request that writes it was sent. A worker writes its
// output into a staging folder and moves it into place in one rename (or hard link),
// so a path naming another file later is that worker's complete output: a worker
// killed just after the move (Cancel clicked as it finished) is told apart from the
// file that was there before, which is never touched.
class OutputSnapshot
{
public:
    OutputSnapshot() = default; // names no path: never changed
    static OutputSnapshot of(const QString &path);

    QString path() const { return m_path; }
    // The path names a file now, and not the one it named (or none) at the snapshot;
    // `regular`, when given: whether that file is a regular file (one lstat for both).
    bool replaced(bool *regular = nullptr) const;
    // replaced(), by a regular file whose safetensors header carries a dimscope
    // manifest (docs/capture-format.md): what a recording worker moves into place, and
    // not a file another program happened to make there meanwhile.
    bool replacedByCapture() const;

private:
    QString m_path;
    bool m_existed = false;
    quint64 m_device = 0;
    quint64 m_inode = 0;
};

} // namespace dimscope
