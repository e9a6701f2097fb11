// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <memory>

namespace dimscope {

// Read-only access to the records of a zip file through libzip. Errors name the
// file and the record.
class Pt2Archive
{
public:
    Pt2Archive();
    ~Pt2Archive();
    Pt2Archive(const Pt2Archive &) = delete;
    Pt2Archive &operator=(const Pt2Archive &) = delete;

    bool open(const QString &path, QString *error);
    QStringList entries() const { return m_entries; } // in central directory order
    bool contains(const QString &name) const { return m_entries.contains(name); }
    // Reads a whole record; fails when it is larger than maxBytes, damaged
    // (CRC, truncated data) or absent.
    bool read(const QString &name, QByteArray *out, QString *error, qint64 maxBytes = qint64(1) << 30) const;

private:
    struct Handle;
    std::unique_ptr<Handle> m_handle;
    QString m_path;
    QStringList m_entries;
};

} // namespace dimscope
