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
    const QString autoClass =
        TerminalText::escaped(auto_.isString() ? auto_.toString() : r.value(QLatin1String("model_class")).toString());
    const QJsonValue script = r.value(QLatin1String("inputs_script"));
    if (script.isString()) // the script ran the model: no prompts, no generation settings
        return QStringLiteral("Recorded from %1 (%2): %3 of %4 forward call(s) of the inputs script %5 (SHA-256 %6)")
            .arg(TerminalText::escaped(name), autoClass)
            .arg(kept.isDouble() ? qMin(kept.toInt(), made) : made)
            .arg(made)
            .arg(TerminalText::escaped(script.toString()), TerminalText::escaped(r.value(QLatin1String("inputs_script_sha256")).toString()));
    QStringList lines;
    lines << QStringLiteral("Recorded from %1 (%2): %3 of %4 forward call(s) in %5 generate() call(s); max_new_tokens %6, "
                            "%7, padding %8")
                 .arg(TerminalText::escaped(name), autoClass)
                 .arg(kept.isDouble() ? qMin(kept.toInt(), made) : made)
                 .arg(made)
                 .arg(batches.size())
                 .arg(r.value(QLatin1String("max_new_tokens")).toInt())
                 .arg(decoding(r), TerminalText::escaped(r.value(QLatin1String("padding_side")).toString()));
    // Each prompt's image or audio file, where it had one.
    const QJsonArray media = r.value(QLatin1String("images")).isArray() ? r.value(QLatin1String("images")).toArray()
                                                                         : r.value(QLatin1String("audio")).toArray();
    for (qsizetype b = 0; b < batches.size(); ++b) {
        QStringList prompts;
        const QJsonArray batch = batches.at(b).toArray();
        const QJsonArray files = media.at(b).toArray();
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
    const QJsonValue script = result.value(QLatin1String("inputs_script"));
    QString text = QStringLiteral("Recorded %1 of %2 forward call(s) %3")
                       .arg(result.value(QLatin1String("calls")).toInt())
                       .arg(result.value(QLatin1String("forward_calls")).toInt())
                       .arg(script.isString()
                                ? QStringLiteral("of the inputs script %1").arg(TerminalText::escaped(script.toString()))
                                : QStringLiteral("in %1 generate() call(s)").arg(result.value(QLatin1String("generate_calls")).toInt()));
    const QJsonValue seconds = result.value(QLatin1String("seconds"));
    const QJsonValue rss = result.value(QLatin1String("max_rss_bytes"));
    if (seconds.isDouble())
        text += QStringLiteral(" in %1 s").arg(seconds.toDouble(), 0, 'f', 1);
    if (rss.isDouble())
        text += QStringLiteral(", peak memory %1 MiB").arg(qRound64(rss.toDouble() / (1024.0 * 1024.0)));
    return text;
}

} // namespace dimscope
