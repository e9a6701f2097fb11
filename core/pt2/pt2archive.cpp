// SPDX-License-Identifier: GPL-3.0-or-later
#include "pt2/pt2archive.h"

#include "util/regularfile.h"

#include <QSet>

#include <optional>

#include <zip.h>

#include <unistd.h>

namespace dimscope {

struct Pt2Archive::Handle {
    zip_t *zip = nullptr;
    ~Handle()
    {
        if (zip)
            zip_discard(zip); // read-only: nothing to write back
    }
};

namespace {
QString zipErrorText(int code)
{
    zip_error_t err;
    zip_error_init_with_code(&err, code);
    const QString text = QString::fromUtf8(zip_error_strerror(&err));
    zip_error_fini(&err);
    return text;
}

// Why libzip refused the file, read through the descriptor still open.
QString openFailure(const QString &path, int fd, int code)
{
    if (code != ZIP_ER_NOZIP)
        return QStringLiteral("%1: cannot open as zip: %2").arg(path, zipErrorText(code));
    char head[4] = {};
    const ssize_t got = ::pread(fd, head, sizeof head, 0);
    if (got == 0)
        return QStringLiteral("%1: empty file, not a .pt2 archive").arg(path);
    if (got == 4 && QByteArray(head, 4) == QByteArray("PK\x03\x04", 4))
        return QStringLiteral("%1: truncated or damaged zip archive: it starts like one but has no central directory").arg(path);
    return QStringLiteral("%1: not a zip archive (a .pt2 file is one)").arg(path);
}

std::optional<QString> repeatedName(const QStringList &names)
{
    QSet<QString> seen;
    seen.reserve(names.size());
    for (const QString &n : names) {
        if (seen.contains(n))
            return n;
        seen.insert(n);
    }
    return std::nullopt;
}

} // namespace

Pt2Archive::Pt2Archive() = default;
Pt2Archive::~Pt2Archive() = default;

bool Pt2Archive::open(const QString &path, QString *error)
{
    m_path = path;
    m_entries.clear();
    m_handle.reset();
    // A descriptor checked to be a regular file, handed to libzip: zip_open() on a
    // FIFO would block forever, and a path checked first could be swapped after.
    QString why;
    const int fd = RegularFile::openDescriptor(path, &why);
    if (fd < 0) {
        *error = QStringLiteral("%1: %2").arg(path, why);
        return false;
    }
    int code = 0;
    zip_t *zip = zip_fdopen(fd, 0, &code); // takes the descriptor on success
    if (!zip) {
        *error = openFailure(path, fd, code);
        ::close(fd);
        return false;
    }
    m_handle = std::make_unique<Handle>();
    m_handle->zip = zip;
    const zip_int64_t n = zip_get_num_entries(zip, 0);
    for (zip_int64_t i = 0; i < n; ++i) {
        const char *name = zip_get_name(zip, zip_uint64_t(i), ZIP_FL_ENC_GUESS);
        if (!name) {
            *error = QStringLiteral("%1: zip entry %2 has no readable name: %3")
                         .arg(path).arg(i).arg(QString::fromUtf8(zip_strerror(zip)));
            m_handle.reset();
            return false;
        }
        m_entries << QString::fromUtf8(name);
    }
    // Two records of one name: libzip finds the first, Python's zipfile (which torch
    // loads with) the last, so this reader could show a program that torch never
    // runs. Such an archive is refused rather than read one way or the other.
    if (const std::optional<QString> twice = repeatedName(m_entries)) {
        QString shown = *twice; // one line, whatever the name holds
        for (QChar &c : shown) {
            if (c.unicode() < 0x20)
                c = QLatin1Char('?');
        }
        *error = QStringLiteral("%1: the archive has two records named '%2' (tools disagree on which one counts)").arg(path, shown);
        m_handle.reset();
        m_entries.clear();
        return false;
    }
    return true;
}

bool Pt2Archive::read(const QString &name, QByteArray *out, QString *error, qint64 maxBytes) const
{
    out->clear();
    if (!m_handle) {
        *error = QStringLiteral("%1: archive not open").arg(m_path);
        return false;
    }
    const QByteArray encoded = name.toUtf8();
    const zip_int64_t index = zip_name_locate(m_handle->zip, encoded.constData(), ZIP_FL_ENC_GUESS);
    if (index < 0) {
        *error = QStringLiteral("%1: no record '%2' in the archive").arg(m_path, name);
        return false;
    }
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(m_handle->zip, zip_uint64_t(index), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) {
        *error = QStringLiteral("%1: %2: cannot read the record's size").arg(m_path, name);
        return false;
    }
    if (st.size > zip_uint64_t(maxBytes)) {
        *error = QStringLiteral("%1: %2: record inflates to %3 bytes, more than the %4 this reader accepts")
                     .arg(m_path, name).arg(st.size).arg(maxBytes);
        return false;
    }
    zip_file_t *file = zip_fopen_index(m_handle->zip, zip_uint64_t(index), 0);
    if (!file) {
        *error = QStringLiteral("%1: %2: cannot open the record: %3")
                     .arg(m_path, name, QString::fromUtf8(zip_strerror(m_handle->zip)));
        return false;
    }
    QByteArray data;
    data.resize(qsizetype(st.size));
    zip_uint64_t done = 0;
    bool ok = true;
    QString why;
    while (done < st.size) {
        const zip_int64_t got = zip_fread(file, data.data() + done, st.size - done);
        if (got < 0) {
            ok = false;
            why = QString::fromUtf8(zip_file_strerror(file));
            break;
        }
        if (got == 0) {
            ok = false;
            why = QStringLiteral("record ends after %1 of %2 bytes").arg(done).arg(st.size);
            break;
        }
        done += zip_uint64_t(got);
    }
    if (ok) {
        // A final read lets libzip check the CRC of the whole record.
        char extra = 0;
        const zip_int64_t tail = zip_fread(file, &extra, 1);
        if (tail < 0) {
            ok = false;
            why = QString::fromUtf8(zip_file_strerror(file));
        } else if (tail > 0) {
            ok = false;
            why = QStringLiteral("record is longer than its declared %1 bytes").arg(st.size);
        }
    }
    zip_fclose(file);
    if (!ok) {
        *error = QStringLiteral("%1: %2: damaged record: %3").arg(m_path, name, why);
        return false;
    }
    *out = data;
    return true;
}

} // namespace dimscope
