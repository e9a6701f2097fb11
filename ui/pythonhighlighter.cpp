// SPDX-License-Identifier: GPL-3.0-or-later
#include "pythonhighlighter.h"

#include <QGuiApplication>
#include <QPalette>

namespace dimscope {

namespace {

QTextCharFormat textFormat(const QColor &colour, bool bold = false, bool italic = false)
{
    QTextCharFormat f;
    f.setForeground(colour);
    if (bold)
        f.setFontWeight(QFont::Bold);
    f.setFontItalic(italic);
    return f;
}

bool isDark(const QPalette &palette) { return palette.color(QPalette::Base).lightness() < 128; }

} // namespace

PythonHighlighter::PythonHighlighter(QTextDocument *document) : QSyntaxHighlighter(document)
{
    updateColours(QGuiApplication::palette());
}

void PythonHighlighter::updateColours(const QPalette &palette)
{
    const bool dark = isDark(palette);
    // Chosen to read at 4.5:1 or better on the theme's base colour (white or #1e1e1e).
    const QColor keyword = dark ? QColor(0x82, 0xaa, 0xff) : QColor(0x00, 0x33, 0xb3);
    const QColor call = dark ? QColor(0xdc, 0xdc, 0xaa) : QColor(0x79, 0x5e, 0x26);
    const QColor number = dark ? QColor(0xb5, 0xce, 0xa8) : QColor(0x09, 0x86, 0x58);
    const QColor string = dark ? QColor(0xce, 0x91, 0x78) : QColor(0xa3, 0x15, 0x15);
    const QColor comment = dark ? QColor(0x8f, 0xbc, 0x8f) : QColor(0x5a, 0x6e, 0x5a);
    static const QString keywords = QStringLiteral(
        "\\b(?:and|as|assert|break|class|continue|def|del|elif|else|except|False|finally|for|from|global|if|"
        "import|in|is|lambda|None|nonlocal|not|or|pass|raise|return|True|try|while|with|yield)\\b");
    m_rules = {
        {QRegularExpression(QStringLiteral("\\b[A-Za-z_][A-Za-z0-9_]*(?=\\()")), textFormat(call)},
        {QRegularExpression(keywords), textFormat(keyword, true)},
        {QRegularExpression(QStringLiteral("\\b\\d+\\b")), textFormat(number)},
        {QRegularExpression(QStringLiteral("\\bf?\"(?:[^\"\\\\]|\\\\.)*\"|\\bf?'(?:[^'\\\\]|\\\\.)*'|\"(?:[^\"\\\\]|\\\\.)*\"")),
         textFormat(string)},
    };
    m_comment = textFormat(comment, false, true);
    rehighlight();
}

void PythonHighlighter::highlightBlock(const QString &text)
{
    for (const Rule &rule : m_rules) {
        QRegularExpressionMatchIterator it = rule.pattern.globalMatch(text);
        while (it.hasNext()) {
            const QRegularExpressionMatch m = it.next();
            setFormat(int(m.capturedStart()), int(m.capturedLength()), rule.format);
        }
    }
    // A comment starts at the first '#' outside a string.
    QChar quote;
    for (int i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (!quote.isNull()) {
            if (c == QLatin1Char('\\'))
                ++i;
            else if (c == quote)
                quote = QChar();
        } else if (c == QLatin1Char('"') || c == QLatin1Char('\'')) {
            quote = c;
        } else if (c == QLatin1Char('#')) {
            setFormat(i, int(text.size()) - i, m_comment);
            return;
        }
    }
}

} // namespace dimscope
