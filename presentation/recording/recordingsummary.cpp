// SPDX-License-Identifier: GPL-3.0-or-later
#include "recording/recordingsummary.h"

#include "util/terminaltext.h"

#include <QFileInfo>
#include <QJsonArray>

namespace dimscope {

namespace {

QString decoding(const QJsonObject &r)
{
    const int beams = r.value(QLatin1String("num_beams")).toInt(1);
    return beams > 1 ? QStringLiteral("beam search, %1 beams").arg(beams) : QStringLiteral("greedy");
}

} // namespace

QString RecordingSummary::describe(const QJsonObject &r)
{
    if (r.isEmpty())
        return {};
    const QString model = r.value(QLatin1String("model")).toString();
    const QString kind = r.value(QLatin1String("model_kind")).toString();
    const QString name = kind == QLatin1String("module") ? model : QFileInfo(model).fileName();
    const QJsonValue auto_ = r.value(QLatin1String("auto_class"));
    const QJsonValue kept = r.value(QLatin1String("max_calls"));
    const int made = r.value(QLatin1String("forward_calls")).toInt();
    const QJsonArray batches = r.value(QLatin1String("batches")).toArray();
    QStringList lines;
    lines << QStringLiteral("Recorded from %1 (%2): %3 of %4 forward call(s) in %5 generate() call(s); max_new_tokens %6, "
                            "%7, padding %8")
                 .arg(TerminalText::escaped(name),
                      TerminalText::escaped(auto_.isString() ? auto_.toString() : r.value(QLatin1String("model_class")).toString()))
                 .arg(kept.isDouble() ? qMin(kept.toInt(), made) : made)
                 .arg(made)
                 .arg(batches.size())
                 .arg(r.value(QLatin1String("max_new_tokens")).toInt())
                 .arg(decoding(r), TerminalText::escaped(r.value(QLatin1String("padding_side")).toString()));
    const QJsonArray images = r.value(QLatin1String("images")).toArray();
    for (qsizetype b = 0; b < batches.size(); ++b) {
        QStringList prompts;
        const QJsonArray batch = batches.at(b).toArray();
        const QJsonArray files = images.at(b).toArray();
        for (qsizetype p = 0; p < batch.size(); ++p) {
            QString prompt = TerminalText::quoted(batch.at(p).toString());
            if (p < files.size())
                prompt += QStringLiteral(" + %1").arg(TerminalText::escaped(QFileInfo(files.at(p).toString()).fileName()));
            prompts << prompt;
        }
        lines << QStringLiteral("generate() call %1: %2").arg(b + 1).arg(prompts.join(QStringLiteral(" | ")));
    }
    return lines.join(QLatin1Char('\n'));
}

QString RecordingSummary::finished(const QJsonObject &result)
{
    QString text = QStringLiteral("Recorded %1 of %2 forward call(s) in %3 generate() call(s)")
                       .arg(result.value(QLatin1String("calls")).toInt())
                       .arg(result.value(QLatin1String("forward_calls")).toInt())
                       .arg(result.value(QLatin1String("generate_calls")).toInt());
    const QJsonValue seconds = result.value(QLatin1String("seconds"));
    const QJsonValue rss = result.value(QLatin1String("max_rss_bytes"));
    if (seconds.isDouble())
        text += QStringLiteral(" in %1 s").arg(seconds.toDouble(), 0, 'f', 1);
    if (rss.isDouble())
        text += QStringLiteral(", peak memory %1 MiB").arg(qRound64(rss.toDouble() / (1024.0 * 1024.0)));
    return text;
}

} // namespace dimscope
