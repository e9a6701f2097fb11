// SPDX-License-Identifier: GPL-3.0-or-later
#include "util/terminaltext.h"

#include <QChar>

namespace dimscope {

namespace {

// Only elided when that saves something: the marker costs about 20 characters.
constexpr qsizetype kElideAbove = 2 * TerminalText::kEdge + 40;

void appendHex(QString &out, char32_t c, int digits)
{
    static const char hex[] = "0123456789abcdef";
    for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4)
        out += QLatin1Char(hex[(c >> shift) & 0xf]);
}

void appendEscape(QString &out, char32_t c)
{
    switch (c) {
    case U'\n': out += QLatin1String("\\n"); return;
    case U'\r': out += QLatin1String("\\r"); return;
    case U'\t': out += QLatin1String("\\t"); return;
    default: break;
    }
    if (c <= 0xff) {
        out += QLatin1String("\\x");
        appendHex(out, c, 2);
    } else if (c <= 0xffff) {
        out += QLatin1String("\\u");
        appendHex(out, c, 4);
    } else {
        out += QLatin1String("\\U");
        appendHex(out, c, 8);
    }
}

// The code point at `i` (a surrogate pair read as one; an unpaired surrogate as
// itself) and how many UTF-16 units it takes.
char32_t codePointAt(QStringView text, qsizetype i, qsizetype *units)
{
    const QChar c = text.at(i);
    if (c.isHighSurrogate() && i + 1 < text.size() && text.at(i + 1).isLowSurrogate()) {
        *units = 2;
        return QChar::surrogateToUcs4(c, text.at(i + 1));
    }
    *units = 1;
    return c.unicode();
}

QString escape(QStringView text, bool keepLines)
{
    // Most names need nothing: return them as they are without building a copy twice.
    qsizetype first = 0;
    for (; first < text.size(); ++first) {
        const char16_t u = text.at(first).unicode();
        if (u >= 0x20 && u < 0x7f)
            continue;
        if (keepLines && (u == u'\n' || u == u'\t'))
            continue;
        qsizetype units = 1;
        if (u >= 0x80 && !TerminalText::isEscaped(codePointAt(text, first, &units))) {
            first += units - 1;
            continue;
        }
        break;
    }
    if (first == text.size())
        return text.toString();
    QString out;
    out.reserve(text.size() + 16);
    out += text.left(first);
    for (qsizetype i = first; i < text.size();) {
        qsizetype units = 1;
        const char32_t c = codePointAt(text, i, &units);
        if (TerminalText::isEscaped(c) && !(keepLines && (c == U'\n' || c == U'\t')))
            appendEscape(out, c);
        else
            out += text.mid(i, units);
        i += units;
    }
    return out;
}

// The UTF-16 length of the first `count` code points of `text` (all of it when shorter).
qsizetype unitsOfFirst(QStringView text, qsizetype count)
{
    qsizetype i = 0;
    for (qsizetype n = 0; n < count && i < text.size(); ++n) {
        qsizetype units = 1;
        codePointAt(text, i, &units);
        i += units;
    }
    return i;
}

// The UTF-16 length of the last `count` code points of `text`.
qsizetype unitsOfLast(QStringView text, qsizetype count)
{
    qsizetype i = text.size();
    for (qsizetype n = 0; n < count && i > 0; ++n) {
        if (i >= 2 && text.at(i - 1).isLowSurrogate() && text.at(i - 2).isHighSurrogate())
            i -= 2;
        else
            i -= 1;
    }
    return text.size() - i;
}

qsizetype codePointCount(QStringView text)
{
    qsizetype n = 0;
    for (qsizetype i = 0; i < text.size(); ++n) {
        qsizetype units = 1;
        codePointAt(text, i, &units);
        i += units;
    }
    return n;
}

} // namespace

bool TerminalText::isEscaped(char32_t c)
{
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f))
        return true;
    if (c < 0xa0)
        return false;
    if (c >= 0xd800 && c <= 0xdfff) // only reaches here unpaired
        return true;
    if (c > 0x10ffff)
        return true;
    switch (QChar::category(c)) {
    case QChar::Other_Format:        // bidi controls, zero-width characters, tags
    case QChar::Separator_Line:      // U+2028: a line break in widgets
    case QChar::Separator_Paragraph: // U+2029
        return true;
    default:
        return false;
    }
}

QString TerminalText::escaped(QStringView text) { return escape(text, false); }

QString TerminalText::escapedLines(QStringView text) { return escape(text, true); }

QString TerminalText::field(QStringView text)
{
    if (text.size() <= kElideAbove)
        return escaped(text);
    const qsizetype total = codePointCount(text);
    if (total <= kElideAbove)
        return escaped(text);
    const qsizetype head = unitsOfFirst(text, kEdge);
    const qsizetype tail = unitsOfLast(text, kEdge);
    return escaped(text.left(head)) + QStringLiteral("…(%1 characters)…").arg(total) + escaped(text.right(tail));
}

QString TerminalText::quoted(QStringView text) { return QLatin1Char('\'') + field(text) + QLatin1Char('\''); }

} // namespace dimscope
