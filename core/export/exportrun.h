// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"
#include "export/exportreport.h"
#include "export/exportrequest.h"
#include "export/phasedexport.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QVector>

namespace dimscope {

class ExportClient;
class LatestJob;

// One export, as both front ends run it (the CLI's `export`, the GUI's ExportService):
// the conversation with the worker (over the caller's ExportClient), the pipeline
// (PhasedExport: fix loop, phases) or one export with a dynamic_shapes spec used as is,
// the cause of each fix torch suggested, then every program written read back off the
// calling thread with the Dims named (ProgramReadBack). Its signals tell each step as
// it happens; finished() carries the ExportReport. One run at a time.
class ExportRun : public QObject
{
    Q_OBJECT
public:
    explicit ExportRun(ExportClient *client, QObject *parent = nullptr);
    ~ExportRun() override;

    // Exports with a constraint set, from which each round's spec is emitted.
    void start(const Capture &capture, const ConstraintSet &constraints, const ExportRequest &request,
               const PhasedExport::Options &options);
    // Exports once with `spec` (a dimscope.dynamic_shapes document) as is.
    void startWithSpec(const Capture &capture, const QJsonObject &spec, const ExportRequest &request);
    // Exporting or reading back.
    bool isRunning() const { return m_exporting || m_readingBack; }
    // Stops the pipeline and the worker's request (the export fails as "cancelled");
    // the programs written before (files of their own) are still read back; an archive's
    // programs, kept in the worker until the run ends, die with it (none is written).
    void cancel();
    const ExportReport &report() const { return m_report; }

signals:
    // The pipeline's steps (PhasedExport's signals, fixes with their causes).
    void attemptStarted(int attempt, const QVector<int> &calls, const QString &description,
                        const dimscope::ConstraintSet &constraints);
    void attemptSkipped(int attempt, const QVector<int> &calls, const QString &why);
    void roundStarted(int attempt, int round);
    void roundFinished(int attempt, int round, const dimscope::ExportResult &result);
    void fixesApplied(int attempt, int round, const QVector<dimscope::AppliedFix> &applied,
                      const QStringList &unapplied, const dimscope::ConstraintSet &constraints, bool changed);
    void attemptFinished(int attempt, bool exported, const QString &why);
    void draftExportStarted(int attempt, int round, const QString &why);
    // The worker's part is over; the programs are read back next.
    void exportsFinished(const dimscope::PhasedExportOutcome &outcome);
    void finished(const dimscope::ExportReport &report);

private:
    void begin(const Capture &capture);
    void connectPipeline();
    void onRoundFinished(int attempt, int round, const ExportResult &result);
    void onFixesApplied(int attempt, int round, const QStringList &applied, const QStringList &unapplied,
                        const ConstraintSet &constraints, bool changed);
    void onSpecExportFinished(int id, const ExportResult &result);
    void onExportsFinished(const PhasedExportOutcome &outcome);
    void readBack(const PhasedExportOutcome &outcome);
    void readBackDone(const QVector<ProgramReadBack> &readBacks);

    QPointer<ExportClient> m_client;
    PhasedExport *m_pipeline;
    Capture m_capture;         // what the programs are read back against
    QJsonObject m_spec;        // startWithSpec: the spec the program is read back with
    int m_specRequest = -1;
    int m_specCall = 0;        // startWithSpec: the example call asked for
    QString m_specHeldOut;     // startWithSpec: the held-out capture asked for
    bool m_exporting = false;
    bool m_readingBack = false;
    LatestJob *m_readBack;     // the programs read back on the thread pool
    ExportReport m_report;
};

} // namespace dimscope
