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
// per call and per leaf); streamed, memory stays what one element needs.
//
// Why it formats the common tokens itself: `inspect --json` of a 33,280-leaf capture
// writes about a million of them, and a QJsonDocument per token (with an indent
// replace and a device write each) made it twice as slow as the text form. Plain
// strings (printable ASCII without '"' or '\') and integers are written directly,
// byte for byte as Qt writes them; anything else (escapes, non-ASCII, doubles, whole
// objects) is still formatted by Qt, so Qt's escaping and number formats stay the
// reference. Output is buffered and goes to the device in large blocks; the document
// is flushed when its outermost container closes.
//
// QJsonObject writes its keys sorted: callers give members in sorted order to keep
// that layout (the writer does not sort).
class JsonStreamWriter
{
public:
    explicit JsonStreamWriter(QIODevice *out);
    ~JsonStreamWriter();

    JsonStreamWriter(const JsonStreamWriter &) = delete;
    JsonStreamWriter &operator=(const JsonStreamWriter &) = delete;

    void beginObject();
    void endObject();
    void beginArray();
    void endArray();
    // The name of the next member of the current object.
    void key(const QString &name);
    // A whole value (scalar, or a small object or array) in the current container.
    void value(const QJsonValue &v);
    void value(const QString &s);
    void value(qint64 n);
    void value(int n) { value(qint64(n)); }
    void value(bool b);
    // Not defined: a double would otherwise silently become an integer through
    // value(qint64); pass QJsonValue(d) so that Qt formats it.
    void value(double) = delete;
    void nullValue();
    // Writes what is buffered to the device; false once a write failed.
    bool flush();
    bool ok() const { return m_ok; }

private:
    struct Level {
        bool isObject = false;
        qint64 count = 0;
    };
    void beforeValue();
    void open(bool isObject);
    void close();
    void appendIndent(qsizetype depth) { m_buffer.append(4 * depth, ' '); }
    void appendString(const QString &s);
    void appendQtText(const QJsonValue &v);
    void maybeFlush();

    QIODevice *m_out;
    QVector<Level> m_stack;
    QByteArray m_buffer;
    bool m_ok = true;
};
