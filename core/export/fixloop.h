// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/exportrequest.h"
#include "export/exportresult.h"

#include <QObject>
#include <QPointer>
#include <QSet>
#include <QStringList>
#include <QVector>

#include <functional>

namespace dimscope {

class ExportClient;

// export -> suggested fixes -> apply -> re-export, until the export succeeds or a
// round changes nothing. Where torch stops on data-dependent model code, the next
// rounds trace with torch.export.draft_export (docs/worker-protocol.md, "Draft export"). Knows nothing about constraint sets: the caller passes how
// to build the current spec and how to apply fix lines (with the shapes module's
// SuggestedFixApplier on its ConstraintSet), so the loop also serves the GUI.
class FixLoop : public QObject
{
    Q_OBJECT
public:
    // The current dimscope.dynamic_shapes document.
    using SpecProvider = std::function<QJsonObject()>;
    // Applies torch's fix lines; returns true when the constraints changed. On a
    // problem, sets *error and returns false.
    using FixApplier = std::function<bool(const QStringList &fixes, QString *error)>;
    // Fix lines for a failed round torch suggested none for (a guard it stated, with the
    // relation or range under which it holds); empty when there are none.
    using FallbackFixes = std::function<QStringList(const ExportResult &failed)>;

    explicit FixLoop(ExportClient *client, QObject *parent = nullptr);

    void setMaxRounds(int rounds) { m_maxRounds = rounds; }
    bool isRunning() const { return m_requestId >= 0; }
    // Starts the loop; request.spec is ignored (the provider gives it each round).
    void start(const ExportRequest &request, SpecProvider spec, FixApplier apply, FallbackFixes fallback = {});
    const QVector<ExportResult> &rounds() const { return m_rounds; }
    // Stops after the current round (the worker is not killed).
    void stop() { m_stopRequested = true; }

signals:
    void roundStarted(int round);
    void roundFinished(int round, const dimscope::ExportResult &result);
    void fixesApplied(int round, const QStringList &fixes);
    // Round `round` stopped on data-dependent model code; the next rounds trace with
    // torch.export.draft_export. why: where torch stopped and what the draft export does.
    void draftExportStarted(int round, const QString &why);
    // success: the last round exported and verified. why: the reason it stopped.
    void finished(bool success, const QString &why);

private:
    void runRound();
    void onExportFinished(int id, const dimscope::ExportResult &result);
    void finish(bool success, const QString &why);
    bool onDataDependent(int round, const ExportResult &result);

    QPointer<ExportClient> m_client;
    ExportRequest m_request;
    SpecProvider m_spec;
    FixApplier m_apply;
    FallbackFixes m_fallback;
    QVector<ExportResult> m_rounds;
    QJsonObject m_lastSpec;
    QString m_workaround; // for the data-dependent code draft_export was tried on
    QString m_dataDependentAt; // " at FILE:LINE" of that code, when torch named it
    QSet<QByteArray> m_seen; // the spec and fixes of each round: a repeat is a cycle
    int m_maxRounds = 8;
    int m_requestId = -1;
    bool m_stopRequested = false;
};

} // namespace dimscope
