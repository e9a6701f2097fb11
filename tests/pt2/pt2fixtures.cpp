// SPDX-License-Identifier: GPL-3.0-or-later
#include "pt2fixtures.h"

#include <QFile>
#include <QStringList>

#include <zip.h>

#include <cstdlib>
#include <cstring>

namespace pt2fixtures {

QString samplePath()
{
    return QStringLiteral(DIMSCOPE_SOURCE_DIR "/tests/fixtures/torch-2.6/llm-like-cache.pt2");
}

bool writeZip(const QString &path, const Records &records, bool store)
{
    QFile::remove(path);
    int code = 0;
    zip_t *zip = zip_open(QFile::encodeName(path).constData(), ZIP_CREATE | ZIP_TRUNCATE, &code);
    if (!zip)
        return false;
    for (const auto &r : records) {
        // libzip copies the buffer at zip_close only, so the source keeps a copy.
        void *copy = malloc(size_t(qMax<qsizetype>(r.second.size(), 1)));
        memcpy(copy, r.second.constData(), size_t(r.second.size()));
        zip_source_t *src = zip_source_buffer(zip, copy, zip_uint64_t(r.second.size()), 1);
        if (!src) {
            free(copy);
            zip_discard(zip);
            return false;
        }
        const zip_int64_t index = zip_file_add(zip, r.first.toUtf8().constData(), src, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8);
        if (index < 0) {
            zip_source_free(src);
            zip_discard(zip);
            return false;
        }
        if (store)
            zip_set_file_compression(zip, zip_uint64_t(index), ZIP_CM_STORE, 0);
    }
    return zip_close(zip) == 0;
}

Records readZip(const QString &path)
{
    Records out;
    int code = 0;
    zip_t *zip = zip_open(QFile::encodeName(path).constData(), ZIP_RDONLY, &code);
    if (!zip)
        return out;
    const zip_int64_t n = zip_get_num_entries(zip, 0);
    for (zip_int64_t i = 0; i < n; ++i) {
        zip_stat_t st;
        if (zip_stat_index(zip, zip_uint64_t(i), 0, &st) != 0)
            break;
        zip_file_t *f = zip_fopen_index(zip, zip_uint64_t(i), 0);
        if (!f)
            break;
        QByteArray data(qsizetype(st.size), '\0');
        const zip_int64_t got = zip_fread(f, data.data(), st.size);
        zip_fclose(f);
        if (got != zip_int64_t(st.size))
            break;
        out.append({QString::fromUtf8(st.name), data});
    }
    zip_discard(zip);
    return out;
}

QByteArray record(const Records &records, const QString &name)
{
    for (const auto &r : records) {
        if (r.first == name)
            return r.second;
    }
    return QByteArray();
}

bool repackAsArchive(const QString &legacyPath, const QString &outPath, const QString &root, const QString &model,
                     const QStringList &extraModels)
{
    const Records legacy = readZip(legacyPath);
    const QByteArray json = record(legacy, QStringLiteral("serialized_exported_program.json"));
    if (json.isEmpty())
        return false;
    const QString r = root.isEmpty() ? QString() : root + QLatin1Char('/');
    Records out;
    out.append({r + QStringLiteral("archive_format"), "pt2"});
    out.append({r + QStringLiteral("archive_version"), "0"});
    out.append({r + QStringLiteral("byteorder"), "little"});
    out.append({r + QStringLiteral(".data/version"), "6"});
    out.append({r + QStringLiteral("models/") + model + QStringLiteral(".json"), json});
    for (const QString &extra : extraModels)
        out.append({r + QStringLiteral("models/") + extra + QStringLiteral(".json"), json});
    out.append({r + QStringLiteral("data/sample_inputs/") + model + QStringLiteral(".pt"),
                record(legacy, QStringLiteral("serialized_example_inputs.pt"))});
    out.append({r + QStringLiteral("data/weights/") + model + QStringLiteral("_weights_config.json"), "{\"config\": {}}"});
    out.append({r + QStringLiteral("data/constants/") + model + QStringLiteral("_constants_config.json"), "{\"config\": {}}"});
    return writeZip(outPath, out);
}

} // namespace pt2fixtures
