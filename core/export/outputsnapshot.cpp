// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/outputsnapshot.h"

#include <QFile>

#include <sys/stat.h>

namespace dimscope {

namespace {
// lstat: the path itself, a symbolic link included (a rename replaces the link).
bool identify(const QString &path, quint64 *device, quint64 *inode, bool *regular = nullptr)
{
    struct stat st;
    if (::lstat(QFile::encodeName(path).constData(), &st) != 0)
        return false;
    *device = quint64(st.st_dev);
    *inode = quint64(st.st_ino);
    if (regular)
        *regular = S_ISREG(st.st_mode);
    return true;
}

// The header's length (8 bytes, little-endian), then the header: its metadata names
// dimscope's manifest. A header is read up to 64 MiB, a capture's of 100,000 leaves
// being a few MiB.
bool hasCaptureHeader(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return false;
    const QByteArray size = f.read(8);
    if (size.size() != 8)
        return false;
    quint64 length = 0;
    for (int i = 7; i >= 0; --i)
        length = (length << 8) | quint8(size[i]);
    if (length < 2 || length > (quint64(64) << 20))
        return false;
    const QByteArray header = f.read(qint64(length));
    return header.startsWith('{') && header.contains("\"__metadata__\"") && header.contains("\"dimscope.manifest\"");
}

} // namespace

OutputSnapshot OutputSnapshot::of(const QString &path)
{
    OutputSnapshot s;
    s.m_path = path;
    if (!path.isEmpty())
        s.m_existed = identify(path, &s.m_device, &s.m_inode);
    return s;
}

bool OutputSnapshot::replaced(bool *regular) const
{
    quint64 device = 0, inode = 0;
    if (m_path.isEmpty() || !identify(m_path, &device, &inode, regular))
        return false;
    return !m_existed || device != m_device || inode != m_inode;
}

bool OutputSnapshot::replacedByCapture() const
{
    bool regular = false;
    return replaced(&regular) && regular && hasCaptureHeader(m_path);
}

} // namespace dimscope
