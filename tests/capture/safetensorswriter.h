// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Test helper: writes safetensors files byte by byte, so tests can produce valid
// captures and precisely malformed ones. Header-only; used by tests/capture and
// tests/bench.

#include <QByteArray>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <QVector>
#include <QtEndian>

namespace dimscope::test {

struct RawTensor {
    QString name;
    QString dtype;        // safetensors name, "F32"
    QVector<qint64> shape;
    QByteArray bytes;
};

inline QJsonArray jsonShape(const QVector<qint64> &shape)
{
    QJsonArray a;
    for (qint64 d : shape)
        a.append(d);
    return a;
}

// 8-byte little-endian length + header (space padded to a multiple of 8, as the
// safetensors library does) + data.
inline QByteArray assemble(const QByteArray &header, const QByteArray &data, bool pad = true)
{
    QByteArray h = header;
    while (pad && h.size() % 8)
        h.append(' ');
    QByteArray out(8, '\0');
    qToLittleEndian<quint64>(quint64(h.size()), out.data());
    return out + h + data;
}

// The header object for tensors laid out back to back, plus __metadata__.
inline QJsonObject headerFor(const QVector<RawTensor> &tensors, const QJsonObject &metadata, QByteArray *data)
{
    QJsonObject header;
    qint64 offset = 0;
    for (const RawTensor &t : tensors) {
        header.insert(t.name, QJsonObject{{QStringLiteral("dtype"), t.dtype},
                                          {QStringLiteral("shape"), jsonShape(t.shape)},
                                          {QStringLiteral("data_offsets"), QJsonArray{offset, offset + t.bytes.size()}}});
        offset += t.bytes.size();
        if (data)
            data->append(t.bytes);
    }
    if (!metadata.isEmpty())
        header.insert(QStringLiteral("__metadata__"), metadata);
    return header;
}

inline QJsonObject manifestMetadata(const QJsonObject &manifest)
{
    return QJsonObject{{QStringLiteral("dimscope.manifest"),
                        QString::fromUtf8(QJsonDocument(manifest).toJson(QJsonDocument::Compact))}};
}

inline QByteArray captureBytes(const QVector<RawTensor> &tensors, const QJsonObject &manifest)
{
    QByteArray data;
    const QJsonObject header = headerFor(tensors, manifestMetadata(manifest), &data);
    return assemble(QJsonDocument(header).toJson(QJsonDocument::Compact), data);
}

inline bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

template<typename T>
QByteArray bytesOf(std::initializer_list<T> values)
{
    QByteArray b;
    for (T v : values)
        b.append(reinterpret_cast<const char *>(&v), sizeof(T));
    return b;
}

} // namespace dimscope::test
