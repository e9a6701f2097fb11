// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/recordrequest.h"

#include "export/exportresult.h"

#include <QDir>
#include <QJsonArray>

namespace dimscope {

namespace {

// One file per prompt, nested like the batches: a list of files per generate() call.
QJsonArray nestedLikeBatches(const QStringList &files, const PromptBatches &prompts)
{
    QJsonArray nested;
    qsizetype next = 0;
    for (const auto &batch : prompts.batches()) {
        QJsonArray inBatch;
        for (qsizetype i = 0; i < batch.size() && next < files.size(); ++i)
            inBatch.append(QDir(files.at(next++)).absolutePath());
        nested.append(inBatch);
    }
    return nested;
}

} // namespace

QJsonObject RecordRequest::toParams() const
{
    QJsonObject p{
        {QStringLiteral("model"), model},
        {QStringLiteral("output"), QDir(output).absolutePath()},
        {QStringLiteral("overwrite"), overwrite},
        {QStringLiteral("trust_remote_code"),
         remoteCodeConsent.isEmpty() ? QJsonValue(trustRemoteCode) : QJsonValue(remoteCodeConsent)},
    };
    if (!tokenizer.isEmpty())
        p.insert(QStringLiteral("tokenizer"), QDir(tokenizer).absolutePath());
    if (calls > 0)
        p.insert(QStringLiteral("calls"), calls);
    if (!inputsScript.isEmpty()) { // the script runs the model: no prompts or generation settings
        p.insert(QStringLiteral("inputs_script"), inputsScript);
        if (!inputsScriptSha256.isEmpty())
            p.insert(QStringLiteral("inputs_script_sha256"), inputsScriptSha256);
        return p;
    }
    p.insert(QStringLiteral("batches"), prompts.toJson());
    p.insert(QStringLiteral("max_new_tokens"), maxNewTokens);
    p.insert(QStringLiteral("num_beams"), numBeams);
    if (!images.isEmpty())
        p.insert(QStringLiteral("images"), nestedLikeBatches(images, prompts));
    if (!audio.isEmpty())
        p.insert(QStringLiteral("audio"), nestedLikeBatches(audio, prompts));
    return p;
}

QString RecordRequest::describe(const WorkerFailure &failure) const
{
    const QJsonValue batch = failure.json.value(QLatin1String("batch"));
    const QJsonValue prompt = failure.json.value(QLatin1String("prompt"));
    const QString place = batch.isDouble() ? prompts.placeOf(batch.toInt(), prompt.isDouble() ? prompt.toInt() : -1)
                                           : QString();
    return place.isEmpty() ? failure.message : place + QStringLiteral(": ") + failure.message;
}

} // namespace dimscope
