// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/fixloop.h"

#include "export/exportclient.h"

#include <QJsonDocument>

namespace dimscope {

FixLoop::FixLoop(ExportClient *client, QObject *parent)
    : QObject(parent)
    , m_client(client)
{
    connect(client, &ExportClient::exportFinished, this, &FixLoop::onExportFinished);
}

void FixLoop::start(const ExportRequest &request, SpecProvider spec, FixApplier apply, FallbackFixes fallback)
{
    m_fallback = std::move(fallback);
    m_request = request;
    m_spec = std::move(spec);
    m_apply = std::move(apply);
    m_rounds.clear();
    m_seen.clear();
    m_workaround.clear();
    m_dataDependentAt.clear();
    m_stopRequested = false;
    runRound();
}

void FixLoop::runRound()
{
    if (!m_client) {
        finish(false, QStringLiteral("the export client is gone"));
        return;
    }
    ExportRequest r = m_request;
    r.spec = m_spec();
    m_lastSpec = r.spec;
    emit roundStarted(m_rounds.size() + 1);
    m_requestId = m_client->exportModel(r);
}

void FixLoop::onExportFinished(int id, const ExportResult &result)
{
    if (id != m_requestId)
        return;
    m_requestId = -1;
    m_rounds.append(result);
    const int round = m_rounds.size();
    emit roundFinished(round, result);
    if (result.ok) {
        finish(true, round == 1 ? QStringLiteral("exported; no fixes were needed")
                                : QStringLiteral("exported after %1 rounds of fixes").arg(round - 1));
        return;
    }
    if (onDataDependent(round, result))
        return;
    QStringList fixes = result.failure.fixes;
    if (fixes.isEmpty() && m_fallback)
        fixes = m_fallback(result);
    if (fixes.isEmpty()) {
        // The cause, so the user need not look for it in --json (save_failed: torch's
        // serializer's message). The first line only; the round's report has the rest.
        QString cause = result.failure.message.trimmed().section(QLatin1Char('\n'), 0, 0);
        if (!cause.isEmpty() && result.failure.kind == QLatin1String("export_failed") && result.failure.source.isValid())
            cause += QStringLiteral(" (in the model's code at %1:%2)").arg(result.failure.source.file).arg(result.failure.source.line);
        QString why = cause.isEmpty() ? QStringLiteral("the export failed (%1) without suggested fixes").arg(result.failure.kind)
                                      : QStringLiteral("the export failed (%1) without suggested fixes: %2")
                                            .arg(result.failure.kind, cause);
        if (m_request.draftExport && !m_workaround.isEmpty())
            why += QStringLiteral(" (traced with torch.export.draft_export; for the data-dependent code%1, the "
                                  "workaround: %2)").arg(m_dataDependentAt, m_workaround);
        finish(false, why);
        return;
    }
    if (round >= m_maxRounds) {
        // The fixes of a round that cannot be retried are left to the user.
        finish(false, m_maxRounds == 1 ? QStringLiteral("the export failed (%1); its suggested fixes were not applied")
                                             .arg(result.failure.kind)
                                       : QStringLiteral("gave up after %1 rounds").arg(round));
        return;
    }
    // The same fixes for the same spec again means applying them led back here. The
    // same fixes for another spec are not a cycle (a split Dim is specialized next).
    const QByteArray seen = QJsonDocument(m_lastSpec).toJson(QJsonDocument::Compact) + '\n'
        + fixes.join(QLatin1Char('\n')).toUtf8();
    if (m_seen.contains(seen)) {
        finish(false, QStringLiteral("torch suggested the same fixes again; applying them changes nothing"));
        return;
    }
    m_seen.insert(seen);
    QString error;
    const bool changed = m_apply(fixes, &error);
    if (!error.isEmpty()) {
        finish(false, QStringLiteral("the suggested fixes could not be applied: %1").arg(error));
        return;
    }
    if (!changed) {
        finish(false, QStringLiteral("applying the suggested fixes changed nothing"));
        return;
    }
    emit fixesApplied(round, fixes);
    if (m_stopRequested) {
        finish(false, QStringLiteral("stopped"));
        return;
    }
    runRound();
}

// torch stopped on data-dependent model code (the worker's `data_dependent`): the next
// round traces with torch.export.draft_export where the worker's torch has it. Where it
// has not, or a draft round stopped there too, the loop ends naming the documented
// workaround the worker chose for the line. False: not such a failure, go on as usual.
bool FixLoop::onDataDependent(int round, const ExportResult &result)
{
    const WorkerFailure &f = result.failure;
    if (f.kind != QLatin1String("data_dependent") || m_maxRounds <= 1)
        return false;
    const QString at = f.source.isValid() ? QStringLiteral(" at %1:%2").arg(f.source.file).arg(f.source.line) : QString();
    const QString expression = f.expression.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(f.expression);
    const QString workaround = f.json.value(QLatin1String("workaround")).toString();
    const QString advice = workaround.isEmpty() ? QString() : QStringLiteral("; workaround: ") + workaround;
    if (m_request.draftExport) {
        finish(false, QStringLiteral("torch.export.draft_export stopped on data-dependent code%1%2 too%3")
                          .arg(at, expression, advice));
        return true;
    }
    if (!f.json.value(QLatin1String("draft_export_available")).toBool()) {
        finish(false, QStringLiteral("torch stopped on data-dependent code%1%2, and this torch has no "
                                     "torch.export.draft_export (torch 2.7+) to export past it%3")
                          .arg(at, expression, advice));
        return true;
    }
    if (round >= m_maxRounds)
        return false;
    m_workaround = workaround;
    m_dataDependentAt = at;
    m_request.draftExport = true;
    emit draftExportStarted(round, QStringLiteral("torch stopped on data-dependent code%1%2; the next round traces "
                                                  "with torch.export.draft_export, which decides it as the example "
                                                  "call does and puts a runtime assertion for it into the program")
                                       .arg(at, expression));
    if (m_stopRequested) {
        finish(false, QStringLiteral("stopped"));
        return true;
    }
    runRound();
    return true;
}

void FixLoop::finish(bool success, const QString &why)
{
    m_requestId = -1;
    emit finished(success, why);
}

} // namespace dimscope
