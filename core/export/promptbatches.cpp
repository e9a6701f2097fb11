// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/promptbatches.h"

#include "util/regularfile.h"

#include <QFileInfo>

namespace dimscope {

namespace {
bool isBlank(QStringView line)
{
    return line.trimmed().isEmpty();
}
} // namespace

std::optional<PromptBatches> PromptBatches::readFile(const QString &path, QString *error)
{
    QString why;
    const std::optional<QByteArray> bytes = RegularFile::readAll(path, kMaxFileBytes, &why);
    if (!bytes) {
        *error = QStringLiteral("%1: %2").arg(path, why);
        return std::nullopt;
    }
    if (bytes->size() > kMaxFileBytes) {
        *error = QStringLiteral("%1: more than %2 bytes: not a prompts file").arg(path).arg(kMaxFileBytes);
        return std::nullopt;
    }
    const QString name = QFileInfo(path).fileName();
    QStringList lines = QString::fromUtf8(*bytes).split(QLatin1Char('\n'));
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast(); // the line end of the last line
    PromptBatches out;
    QVector<Prompt> block;
    auto endBlock = [&](int lineNumber) {
        if (block.isEmpty()) {
            *error = QStringLiteral("%1:%2: an empty prompt block (a blank line starts the next generate() call; a "
                                    "blank line first, last or after another leaves a block with no prompt)")
                         .arg(path)
                         .arg(lineNumber);
            return false;
        }
        out.m_batches.append(block);
        block.clear();
        return true;
    };
    for (int i = 0; i < lines.size(); ++i) {
        QString line = lines.at(i);
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
        if (isBlank(line)) {
            if (!endBlock(i + 1))
                return std::nullopt;
            continue;
        }
        block.append({line, QStringLiteral("%1:%2").arg(name).arg(i + 1)});
    }
    if (lines.isEmpty()) {
        *error = QStringLiteral("%1: no prompt (one prompt a line, a blank line between batches)").arg(path);
        return std::nullopt;
    }
    if (!endBlock(int(lines.size())))
        return std::nullopt;
    return out;
}

PromptBatches PromptBatches::oneBatch(const QStringList &prompts, const QString &placePrefix)
{
    PromptBatches out;
    QVector<Prompt> batch;
    for (int i = 0; i < prompts.size(); ++i)
        batch.append({prompts.at(i), QStringLiteral("%1 %2").arg(placePrefix).arg(i + 1)});
    if (!batch.isEmpty())
        out.m_batches.append(batch);
    return out;
}

std::optional<PromptBatches> PromptBatches::fromBoxes(const QStringList &boxes, QString *error)
{
    PromptBatches out;
    for (int b = 0; b < boxes.size(); ++b) {
        QVector<Prompt> batch;
        const QStringList lines = boxes.at(b).split(QLatin1Char('\n'));
        for (int i = 0; i < lines.size(); ++i) {
            QString line = lines.at(i);
            if (line.endsWith(QLatin1Char('\r')))
                line.chop(1);
            if (!isBlank(line))
                batch.append({line, QStringLiteral("box %1, line %2").arg(b + 1).arg(i + 1)});
        }
        if (batch.isEmpty()) {
            *error = QStringLiteral("prompt box %1 is empty: give it a prompt (one a line) or remove the box").arg(b + 1);
            return std::nullopt;
        }
        out.m_batches.append(batch);
    }
    if (out.m_batches.isEmpty()) {
        *error = QStringLiteral("no prompt box: add one");
        return std::nullopt;
    }
    return out;
}

int PromptBatches::promptCount() const
{
    int n = 0;
    for (const auto &b : m_batches)
        n += int(b.size());
    return n;
}

QJsonArray PromptBatches::toJson() const
{
    QJsonArray batches;
    for (const auto &b : m_batches) {
        QJsonArray prompts;
        for (const Prompt &p : b)
            prompts.append(p.text);
        batches.append(prompts);
    }
    return batches;
}

QString PromptBatches::placeOf(int b, int p) const
{
    if (b < 0 || b >= m_batches.size() || m_batches.at(b).isEmpty())
        return {};
    const QVector<Prompt> &batch = m_batches.at(b);
    return p < 0 ? batch.first().place : p < batch.size() ? batch.at(p).place : QString();
}

} // namespace dimscope
