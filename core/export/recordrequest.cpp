// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/recordrequest.h"

#include "export/exportresult.h"

#include <QDir>
#include <QJsonArray>

namespace dimscope {

QJsonObject RecordRequest::toParams() const
{
    QJsonObject p{
        {QStringLiteral("model"), model},
        {QStringLiteral("batches"), prompts.toJson()},
        {QStringLiteral("max_new_tokens"), maxNewTokens},
        {QStringLiteral("num_beams"), numBeams},
        {QStringLiteral("output"), QDir(output).absolutePath()},
        {QStringLiteral("overwrite"), overwrite},
        {QStringLiteral("trust_remote_code"),
         remoteCodeConsent.isEmpty() ? QJsonValue(trustRemoteCode) : QJsonValue(remoteCodeConsent)},
    };
    if (!tokenizer.isEmpty())
        p.insert(QStringLiteral("tokenizer"), QDir(tokenizer).absolutePath());
    if (calls > 0)
        p.insert(QStringLiteral("calls"), calls);
    if (!images.isEmpty()) { // nested like the batches: one list of files per generate() call
        QJsonArray nested;
        qsizetype next = 0;
        for (const auto &batch : prompts.batches()) {
            QJsonArray files;
            for (qsizetype i = 0; i < batch.size() && next < images.size(); ++i)
                files.append(QDir(images.at(next++)).absolutePath());
            nested.append(files);
        }
        p.insert(QStringLiteral("images"), nested);
    }
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
