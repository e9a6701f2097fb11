// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"
#include "export/exportrequest.h"
#include "export/phasedexport.h"
#include "export/phasedexportoutcome.h"
#include "export/programreadback.h"
#include "shapes/constraintset.h"

#include <QJsonObject>
#include <QObject>
#include <QVector>

namespace dimscope {

class ExportClient;
class PythonRuntime;

// Export without widgets: the Python worker (an ExportClient started lazily and kept
// warm), its state and environment (the hello answer: versions, CUDA), the export
// pipeline (core's PhasedExport, as the CLI's --fix-loop runs it) and the read-back
// of every program it wrote, done off the calling thread. The GUI's ExportController
// puts it behind actions and panels; tests drive it with QSignalSpy alone.
class ExportService : public QObject
{
    Q_OBJECT
public:
    enum class WorkerState { NotStarted, Starting, Idle, Exporting, Crashed };
    Q_ENUM(WorkerState)

    explicit ExportService(const PythonRuntime &runtime, QObject *parent = nullptr);
    ~ExportService() override;

    ExportClient *client() const { return m_client; }
    WorkerState state() const { return m_state; }
    static QString stateName(WorkerState state);
    // Why the worker crashed or did not start (empty otherwise).
    QString stateDetail() const { return m_stateDetail; }
    // The worker's hello answer (empty until it came): python, torch, transformers, cuda.
    QJsonObject environment() const { return m_environment; }
    QString torchVersion() const;
    bool cudaAvailable() const;
    // Several lines for Preferences: interpreter, versions, CUDA devices.
    QString environmentDescription() const;

    // A changed interpreter stops the worker; the next request starts the new one.
    void setRuntime(const PythonRuntime &runtime);
    // Starts the worker and asks it hello, unless it runs or is starting.
    void ensureWorker();

    // Exports `capture` (its calls as `request.capture` holds them) with `constraints`
    // through the pipeline; finished() follows, also when it fails or is cancelled.
    // The outcome is not kept here: whoever shows it holds it (the GUI's ExportResults).
    void start(const Capture &capture, const ConstraintSet &constraints, const ExportRequest &request,
               const PhasedExport::Options &options);
    bool isExporting() const;
    void cancel();

signals:
    void stateChanged(dimscope::ExportService::WorkerState state);
    void environmentChanged();
    void workerFailedToStart(const QString &message);
    void progress(const QString &stage, const QString &text, double fraction);
    void logLine(const QString &stream, const QString &text);
    // dimscope's own account of the pipeline's steps (phases, fix rounds, fixes).
    void step(const QString &text);
    // What the export produced, and its programs read back (parallel to
    // outcome.programs; empty when none exported).
    void finished(const dimscope::PhasedExportOutcome &outcome, const QVector<dimscope::ProgramReadBack> &readBacks);

private:
    void setState(WorkerState state);
    void connectClient();
    void connectPipeline();
    void onHello(const QJsonObject &result);
    void onPipelineFinished(const PhasedExportOutcome &outcome);
    void readBackDone(const PhasedExportOutcome &outcome, const QVector<ProgramReadBack> &readBacks);

    ExportClient *m_client;
    PhasedExport *m_pipeline;
    WorkerState m_state = WorkerState::NotStarted;
    QString m_stateDetail;
    QJsonObject m_environment;
    int m_helloId = -1;
    bool m_cancelling = false;
    bool m_readingBack = false;
    int m_generation = 0; // a read-back of a superseded export is dropped
    Capture m_exportCapture; // what the running export's programs are read back against
};

} // namespace dimscope
