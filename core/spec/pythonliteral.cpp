// SPDX-License-Identifier: GPL-3.0-or-later
#include "spec/pythonliteral.h"

#include "util/terminaltext.h"

namespace dimscope {

QString PythonLiteral::string(const QString &text)
{
    QString out = QStringLiteral("\"");
    for (qsizetype i = 0; i < text.size(); ++i) {
        char32_t c = text[i].unicode(); // an unpaired surrogate stays itself (and is escaped)
        if (text[i].isHighSurrogate() && i + 1 < text.size() && text[i + 1].isLowSurrogate()) {
            c = QChar::surrogateToUcs4(text[i], text[i + 1]);
            ++i;
        }
        if (c == '\\' || c == '"') {
            out += QLatin1Char('\\') + QLatin1Char(char(c));
        } else if (c == '\n' || c == '\r' || c == '\t') {
            out += c == '\n' ? QLatin1String("\\n") : c == '\r' ? QLatin1String("\\r") : QLatin1String("\\t");
        } else if (TerminalText::isEscaped(c)) {
            const uint code = uint(c);
            if (code < 0x100)
                out += QStringLiteral("\\x%1").arg(code, 2, 16, QLatin1Char('0'));
            else if (code < 0x10000)
                out += QStringLiteral("\\u%1").arg(code, 4, 16, QLatin1Char('0'));
            else
                out += QStringLiteral("\\U%1").arg(code, 8, 16, QLatin1Char('0'));
        } else {
            out += QString::fromUcs4(&c, 1);
        }
    }
    return out + QLatin1Char('"');
}

} // namespace dimscope
