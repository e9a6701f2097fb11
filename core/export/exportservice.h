// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"
#include "export/exportrequest.h"
#include "export/exportrun.h"
#include "export/phasedexport.h"
#include "export/phasedexportoutcome.h"
#include "export/programreadback.h"
#include "export/recordingrun.h"
#include "constraints/constraintset.h"

#include <QJsonObject>
#include <QObject>
#include <QVector>

namespace dimscope {

class ExportClient;
class PythonRuntime;

// Export without widgets: the Python worker (an ExportClient started lazily and kept
// warm), its state and environment (the hello answer: versions, CUDA), and the export
// itself, which is core's ExportRun as the CLI runs it (the pipeline, the fixes' causes,
// every program read back off the calling thread). The GUI's ExportController puts it
// behind actions and panels; tests drive it with QSignalSpy alone.
class ExportService : public QObject
{
    Q_OBJECT
public:
    enum class WorkerState { NotStarted, Starting, Idle, Exporting, Crashed, Recording };
    Q_ENUM(WorkerState)

    explicit ExportService(const PythonRuntime &runtime, QObject *parent = nullptr);
    ~ExportService() override;

    ExportClient *client() const { return m_client; }
    // The pipeline's steps as they happen (phases, fix rounds): the GUI's progress line.
    ExportRun *run() const { return m_run; }
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
    // Records a capture on the same warm worker (issue 21: the worker's `record`
    // request, then the project `projectPath`; RecordingRun); recordingFinished()
    // follows, also when it fails or is cancelled. Progress and log lines come as an
    // export's. Not while an export or another recording runs (isBusy()).
    void startRecording(const RecordRequest &request, const QString &projectPath);
    bool isRecording() const;
    // Exporting or recording: the worker is busy with the user's request.
    bool isBusy() const { return isExporting() || isRecording(); }
    // Stops the export or the recording.
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
    void recordingFinished(const dimscope::RecordingOutcome &outcome);

private:
    void setState(WorkerState state);
    void connectClient();
    void connectRun();
    void onHello(const QJsonObject &result);
    void onRunFinished(const ExportReport &report);
    void onRecordingFinished(const RecordingOutcome &outcome);

    ExportClient *m_client;
    ExportRun *m_run;
    RecordingRun *m_recording;
    WorkerState m_state = WorkerState::NotStarted;
    QString m_stateDetail;
    QJsonObject m_environment;
    int m_helloId = -1;
    bool m_cancelling = false;
};

} // namespace dimscope
