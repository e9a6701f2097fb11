// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonstreamwriter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace {

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

} // namespace

JsonStreamWriter::JsonStreamWriter(QIODevice *out) : m_out(out) {}

void JsonStreamWriter::write(const QByteArray &bytes)
{
    if (m_ok && m_out->write(bytes) != bytes.size())
        m_ok = false;
}

// The separator and indent before a value in an array (a member's come with key()).
void JsonStreamWriter::beforeValue()
{
    if (m_stack.isEmpty() || m_stack.last().isObject)
        return;
    Level &level = m_stack.last();
    write((level.count++ > 0 ? QByteArray(",\n") : QByteArray()) + indent(m_stack.size()));
}

void JsonStreamWriter::open(bool isObject)
{
    beforeValue();
    write(isObject ? "{\n" : "[\n");
    m_stack.append({isObject, 0});
}

// Qt's layout: the last item ends its line, the bracket sits at the container's
// own indent ("{\n}" when empty); the document ends with a newline.
void JsonStreamWriter::close()
{
    const Level level = m_stack.takeLast();
    write((level.count > 0 ? QByteArray("\n") : QByteArray()) + indent(m_stack.size())
          + (level.isObject ? "}" : "]") + (m_stack.isEmpty() ? "\n" : ""));
}

void JsonStreamWriter::beginObject() { open(true); }
void JsonStreamWriter::endObject() { close(); }
void JsonStreamWriter::beginArray() { open(false); }
void JsonStreamWriter::endArray() { close(); }

void JsonStreamWriter::key(const QString &name)
{
    Level &level = m_stack.last();
    write((level.count++ > 0 ? QByteArray(",\n") : QByteArray()) + indent(m_stack.size()) + qtText(name) + ": ");
}

void JsonStreamWriter::value(const QJsonValue &v)
{
    beforeValue();
    // Qt formats it at depth 0: every line after the first moves to this depth.
    QByteArray text = qtText(v);
    if (!m_stack.isEmpty() && text.contains('\n'))
        text.replace("\n", QByteArray(QByteArray("\n") + indent(m_stack.size())));
    write(text);
}
