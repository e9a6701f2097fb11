// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonstreamwriter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace {

constexpr qsizetype kBlock = 64 * 1024; // written to the device in blocks of about this size

// A value as Qt writes it at the top level, without the final newline.
QByteArray qtText(const QJsonValue &v)
{
    QByteArray text;
    if (v.isObject())
        text = QJsonDocument(v.toObject()).toJson(QJsonDocument::Indented);
    else if (v.isArray())
        text = QJsonDocument(v.toArray()).toJson(QJsonDocument::Indented);
    else // a scalar: inside a one-element list, then unwrapped
        text = QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact).mid(1).chopped(1);
    if (text.endsWith('\n'))
        text.chop(1);
    return text;
}

// True when Qt writes every character of `s` as itself: printable ASCII other than
// '"' and '\' (Qt escapes those, control characters, and encodes the rest as UTF-8).
bool isPlainAscii(const QString &s)
{
    for (const QChar c : s) {
        const char16_t u = c.unicode();
        if (u < 0x20 || u >= 0x80 || u == u'"' || u == u'\\')
            return false;
    }
    return true;
}

} // namespace

JsonStreamWriter::JsonStreamWriter(QIODevice *out) : m_out(out) { m_buffer.reserve(kBlock + 4096); }

JsonStreamWriter::~JsonStreamWriter() { flush(); }

bool JsonStreamWriter::flush()
{
    if (m_ok && !m_buffer.isEmpty() && m_out->write(m_buffer) != m_buffer.size())
        m_ok = false;
    m_buffer.clear();
    return m_ok;
}

void JsonStreamWriter::maybeFlush()
{
    if (m_buffer.size() >= kBlock)
        flush();
}

void JsonStreamWriter::appendString(const QString &s)
{
    if (!isPlainAscii(s)) {
        appendQtText(QJsonValue(s));
        return;
    }
    const qsizetype at = m_buffer.size();
    m_buffer.resize(at + s.size() + 2);
    char *p = m_buffer.data() + at;
    *p++ = '"';
    for (const QChar c : s)
        *p++ = char(c.unicode());
    *p = '"';
}

// Qt formats it at depth 0: every line after the first moves to this depth.
void JsonStreamWriter::appendQtText(const QJsonValue &v)
{
    QByteArray text = qtText(v);
    if (!m_stack.isEmpty() && text.contains('\n'))
        text.replace("\n", QByteArray(QByteArray("\n") + QByteArray(4 * m_stack.size(), ' ')));
    m_buffer.append(text);
}

// The separator and indent before a value in an array (a member's come with key()).
void JsonStreamWriter::beforeValue()
{
    if (m_stack.isEmpty() || m_stack.last().isObject)
        return;
    Level &level = m_stack.last();
    if (level.count++ > 0)
        m_buffer.append(",\n", 2);
    appendIndent(m_stack.size());
}

void JsonStreamWriter::open(bool isObject)
{
    beforeValue();
    m_buffer.append(isObject ? "{\n" : "[\n", 2);
    m_stack.append({isObject, 0});
}

// Qt's layout: the last item ends its line, the bracket sits at the container's
// own indent ("{\n}" when empty); the document ends with a newline.
void JsonStreamWriter::close()
{
    const Level level = m_stack.takeLast();
    if (level.count > 0)
        m_buffer.append('\n');
    appendIndent(m_stack.size());
    m_buffer.append(level.isObject ? '}' : ']');
    if (m_stack.isEmpty()) {
        m_buffer.append('\n');
        flush();
    } else {
        maybeFlush();
    }
}

void JsonStreamWriter::beginObject() { open(true); }
void JsonStreamWriter::endObject() { close(); }
void JsonStreamWriter::beginArray() { open(false); }
void JsonStreamWriter::endArray() { close(); }

void JsonStreamWriter::key(const QString &name)
{
    Level &level = m_stack.last();
    if (level.count++ > 0)
        m_buffer.append(",\n", 2);
    appendIndent(m_stack.size());
    appendString(name);
    m_buffer.append(": ", 2);
}

void JsonStreamWriter::value(const QJsonValue &v)
{
    beforeValue();
    if (v.isString())
        appendString(v.toString());
    else
        appendQtText(v);
    maybeFlush();
}

void JsonStreamWriter::value(const QString &s)
{
    beforeValue();
    appendString(s);
    maybeFlush();
}

// As Qt writes a QJsonValue holding an integer.
void JsonStreamWriter::value(qint64 n)
{
    beforeValue();
    m_buffer.append(QByteArray::number(n));
    maybeFlush();
}

void JsonStreamWriter::value(bool b)
{
    beforeValue();
    if (b)
        m_buffer.append("true", 4);
    else
        m_buffer.append("false", 5);
    maybeFlush();
}

void JsonStreamWriter::nullValue()
{
    beforeValue();
    m_buffer.append("null", 4);
    maybeFlush();
}
