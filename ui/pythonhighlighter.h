// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>
#include <QVector>

namespace dimscope {

// Colours the Python the Spec tab shows: keywords, strings, comments, numbers and the
// names of calls. Enough for dimscope's own scripts (one string per line, no
// triple-quoted strings); colours follow the palette (light and dark themes).
class PythonHighlighter : public QSyntaxHighlighter
{
    Q_OBJECT
public:
    explicit PythonHighlighter(QTextDocument *document);
    // The palette changed (theme switch): colours again.
    void updateColours(const QPalette &palette);

protected:
    void highlightBlock(const QString &text) override;

private:
    struct Rule {
        QRegularExpression pattern;
        QTextCharFormat format;
    };
    QVector<Rule> m_rules; // later rules win (strings over keywords)
    QTextCharFormat m_comment;
};

} // namespace dimscope
