// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonArray>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace dimscope {

// The prompts of a recording (issue 21): batches of prompts, one generate() call per
// batch, each prompt with the place it came from so that an error about it names that
// place ("prompts.txt:7", "--prompt 2"). The CLI reads them from a file or from its
// options; the GUI's prompt boxes give them the same way.
class PromptBatches
{
public:
    struct Prompt {
        QString text;
        QString place; // "prompts.txt:7", "--prompt 2", "box 1, line 3"
    };

    static constexpr qint64 kMaxFileBytes = 16 * 1024 * 1024; // larger is refused unread

    // A prompts file: each line a prompt, the lines of one block one batch, a blank line
    // (nothing but spaces) starts the next batch. A block left empty (a blank line first,
    // last, or two in a row) is an error naming its line, as is a file with no prompt.
    static std::optional<PromptBatches> readFile(const QString &path, QString *error);
    // Prompts given one by one (repeated --prompt): one batch.
    static PromptBatches oneBatch(const QStringList &prompts, const QString &placePrefix);
    // The GUI's prompt boxes (issue 21): each box one batch, each line of it that is not
    // blank a prompt ("box 2, line 3"). A box with no prompt is an error naming it.
    static std::optional<PromptBatches> fromBoxes(const QStringList &boxes, QString *error);

    const QVector<QVector<Prompt>> &batches() const { return m_batches; }
    int promptCount() const;
    // The worker's `batches`: a list of lists of strings.
    QJsonArray toJson() const;
    // The place of batch b's prompt p, or of batch b when p < 0 (its first prompt's place).
    QString placeOf(int b, int p) const;

private:
    QVector<QVector<Prompt>> m_batches;
};

} // namespace dimscope
