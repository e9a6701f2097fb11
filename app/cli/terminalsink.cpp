// SPDX-License-Identifier: GPL-3.0-or-later
#include "terminalsink.h"

#include "util/terminaltext.h"

#include <utility>

using dimscope::TerminalText;

namespace {

// Bytes that pass as they are: printable ASCII, line feed and tab.
bool isPlain(uchar b) { return (b >= 0x20 && b < 0x7f) || b == '\n' || b == '\t'; }

// Where a UTF-8 sequence that the end of `bytes` cuts short begins (bytes.size()
// when none is cut).
qsizetype cutSequenceStart(const QByteArray &bytes)
{
    const qsizetype n = bytes.size();
    for (qsizetype back = 1; back <= 3 && back <= n; ++back) {
        const uchar b = uchar(bytes.at(n - back));
        if ((b & 0xc0) == 0x80)
            continue; // a continuation byte: look further back for its lead
        const int length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
        return length > back ? n - back : n;
    }
    return n;
}

void appendHex(QString &out, char32_t c, int digits)
{
    static const char hex[] = "0123456789abcdef";
    for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4)
        out += QLatin1Char(hex[(c >> shift) & 0xf]);
}

// The characters TerminalText escapes, as JSON or Python string escapes.
QString sourceEscaped(const QString &text, TerminalSink::Mode mode)
{
    QString out;
    out.reserve(text.size() + 16);
    for (qsizetype i = 0; i < text.size();) {
        char32_t c = text.at(i).unicode();
        qsizetype units = 1;
        if (text.at(i).isHighSurrogate() && i + 1 < text.size() && text.at(i + 1).isLowSurrogate()) {
            c = QChar::surrogateToUcs4(text.at(i), text.at(i + 1));
            units = 2;
        }
        if (c == U'\n' || c == U'\t' || !TerminalText::isEscaped(c)) {
            out += QStringView(text).mid(i, units);
        } else if (c > 0xffff && mode == TerminalSink::Mode::Python) {
            out += QLatin1String("\\U");
            appendHex(out, c, 8);
        } else {
            for (qsizetype k = 0; k < units; ++k) { // JSON spells a pair as two escapes
                out += QLatin1String("\\u");
                appendHex(out, text.at(i + k).unicode(), 4);
            }
        }
        i += units;
    }
    return out;
}

} // namespace

TerminalSink::TerminalSink(FILE *stream, Mode mode) : m_mode(mode)
{
    m_file.open(stream, QIODevice::WriteOnly);
    QIODevice::open(QIODevice::WriteOnly | QIODevice::Unbuffered);
}

TerminalSink::~TerminalSink()
{
    if (!m_carry.isEmpty()) // a cut sequence at the very end: shown as U+FFFD
        writeEscaped(std::exchange(m_carry, QByteArray()));
    m_file.flush();
}

qint64 TerminalSink::writeData(const char *data, qint64 size)
{
    QByteArray bytes = m_carry + QByteArray::fromRawData(data, qsizetype(size));
    const qsizetype cut = cutSequenceStart(bytes);
    m_carry = bytes.mid(cut);
    bytes.truncate(cut);
    return writeEscaped(bytes) ? size : -1;
}

bool TerminalSink::writeEscaped(const QByteArray &utf8)
{
    bool plain = true;
    for (char b : utf8) {
        if (!isPlain(uchar(b))) {
            plain = false;
            break;
        }
    }
    QByteArray out = utf8;
    if (!plain) {
        const QString text = QString::fromUtf8(utf8);
        out = (m_mode == Mode::Text ? TerminalText::escapedLines(text) : sourceEscaped(text, m_mode)).toUtf8();
    }
    if (m_file.write(out) != out.size() || !m_file.flush()) {
        setErrorString(m_file.errorString());
        return false;
    }
    return true;
}
