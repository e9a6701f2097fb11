// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QIODevice>
#include <QJsonValue>
#include <QString>
#include <QVector>

// Writes one JSON document to a device as it goes, in exactly the layout of
// QJsonDocument::toJson(Indented) (4-space indent, "key": value), so that output
// streamed for a large capture reads like the small ones always did.
//
// Why: building the whole document first costs many times its text (a QJsonObject
// per call and per leaf); streamed, memory stays what one element needs. Small
// elements are still formatted by Qt (value()), so escaping and number formats are
// Qt's own.
//
// QJsonObject writes its keys sorted: callers give members in sorted order to keep
// that layout (the writer does not sort).
class JsonStreamWriter
{
public:
    explicit JsonStreamWriter(QIODevice *out);

    void beginObject();
    void endObject();
    void beginArray();
    void endArray();
    // The name of the next member of the current object.
    void key(const QString &name);
    // A whole value (scalar, or a small object or array) in the current container.
    void value(const QJsonValue &v);
    bool ok() const { return m_ok; }

private:
    struct Level {
        bool isObject = false;
        qint64 count = 0;
    };
    void beforeValue();
    void open(bool isObject);
    void close();
    void write(const QByteArray &bytes);
    QByteArray indent(qsizetype depth) const { return QByteArray(4 * depth, ' '); }

    QIODevice *m_out;
    QVector<Level> m_stack;
    bool m_ok = true;
};
