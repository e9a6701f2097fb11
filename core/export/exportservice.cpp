// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/exportservice.h"

#include "export/exportclient.h"
#include "export/exportphases.h"
#include "export/pythonruntime.h"

#include <QJsonArray>

namespace dimscope {

ExportService::ExportService(const PythonRuntime &runtime, QObject *parent)
    : QObject(parent), m_client(new ExportClient(this)), m_run(new ExportRun(m_client, this)),
      m_recording(new RecordingRun(m_client, this))
{
    m_client->setRuntime(runtime);
    connectClient();
    connectRun();
}

ExportService::~ExportService()
{
    // Nothing the client does while it stops the worker may reach this half-destroyed
    // service.
    m_client->disconnect(this);
    m_run->disconnect(this);
    m_recording->disconnect(this);
    delete m_recording;
    delete m_run;
    delete m_client;
}

QString ExportService::stateName(WorkerState state)
{
    switch (state) {
    case WorkerState::NotStarted: return tr("not started");
    case WorkerState::Starting: return tr("starting");
    case WorkerState::Idle: return tr("idle");
    case WorkerState::Exporting: return tr("exporting");
    case WorkerState::Crashed: return tr("crashed");
    case WorkerState::Recording: return tr("recording");
    }
    return {};
}

void ExportService::connectClient()
{
    connect(m_client, &ExportClient::workerStarted, this, [this](const QJsonObject &) {
        if (m_state == WorkerState::Starting && m_helloId < 0)
            setState(WorkerState::Idle);
    });
    connect(m_client, &ExportClient::workerStopped, this, [this](const QString &reason) {
        m_environment = {};
        m_stateDetail = reason;
        // A cancel or a runtime change is the user's doing; anything else is a crash.
        setState(m_cancelling || reason == QLatin1String("the Python runtime changed") ? WorkerState::NotStarted
                                                                                        : WorkerState::Crashed);
        emit environmentChanged();
    });
    connect(m_client, &ExportClient::requestResult, this, [this](int id, const QString &, const QJsonObject &result) {
        if (id == m_helloId) {
            m_helloId = -1;
            onHello(result);
        }
    });
    connect(m_client, &ExportClient::requestFailed, this, [this](int id, const QString &, const WorkerFailure &failure) {
        if (id != m_helloId)
            return;
        m_helloId = -1;
        m_stateDetail = failure.message;
        if (failure.kind == QLatin1String("cancelled"))
            return; // the user's doing, and the export's own failure says so
        setState(WorkerState::Crashed);
        emit workerFailedToStart(failure.message);
    });
    connect(m_client, &ExportClient::progress, this, [this](int id, const QString &stage, const QString &text, double fraction) {
        if (id != m_helloId && isBusy())
            emit progress(stage, text, fraction);
    });
    connect(m_client, &ExportClient::logLine, this,
            [this](int, const QString &stream, const QString &text) { emit logLine(stream, text); });
}

// The run's steps as one-line texts (the worker's own lines come through logLine).
void ExportService::connectRun()
{
    connect(m_run, &ExportRun::attemptStarted, this,
            [this](int attempt, const QVector<int> &calls, const QString &description, const ConstraintSet &) {
                if (!calls.isEmpty())
                    emit step(tr("phase %1: calls %2 (%3)")
                                  .arg(attempt)
                                  .arg(ExportPhases::callsText(calls), description));
                else if (description != QLatin1String("every call")) // the continuation's synthesized calls
                    emit step(tr("phase %1: %2").arg(attempt).arg(description));
            });
    connect(m_run, &ExportRun::attemptSkipped, this,
            [this](int, const QVector<int> &, const QString &why) { emit step(why); });
    connect(m_run, &ExportRun::roundStarted, this, [this](int, int round) {
        if (round > 1)
            emit step(tr("fix loop round %1").arg(round));
    });
    connect(m_run, &ExportRun::fixesApplied, this,
            [this](int, int, const QVector<AppliedFix> &applied, const QStringList &unapplied, const ConstraintSet &, bool) {
                for (const AppliedFix &fix : applied)
                    emit step(tr("applied torch's fix: %1").arg(fix.line));
                for (const QString &line : unapplied)
                    emit step(tr("not applied: %1").arg(line));
            });
    connect(m_run, &ExportRun::attemptFinished, this,
            [this](int attempt, bool, const QString &why) { emit step(tr("attempt %1: %2").arg(attempt).arg(why)); });
    connect(m_run, &ExportRun::finished, this, &ExportService::onRunFinished);
    connect(m_recording, &RecordingRun::finished, this, &ExportService::onRecordingFinished);
}

void ExportService::setState(WorkerState state)
{
    if (m_state == state)
        return;
    m_state = state;
    emit stateChanged(state);
}

QString ExportService::torchVersion() const { return m_environment.value(QLatin1String("torch")).toString(); }

bool ExportService::cudaAvailable() const
{
    return m_environment.value(QLatin1String("cuda")).toObject().value(QLatin1String("available")).toBool();
}

QString ExportService::environmentDescription() const
{
    const PythonRuntime runtime = m_client->runtime();
    QStringList lines;
    lines << tr("Interpreter: %1 (%2)").arg(runtime.isValid() ? runtime.commandLine() : tr("none found"), runtime.sourceName());
    if (m_environment.isEmpty()) {
        lines << (m_state == WorkerState::Crashed ? tr("Worker: %1").arg(m_stateDetail)
                                                  : tr("Worker: %1 (versions known once it has started)").arg(stateName(m_state)));
        return lines.join(QLatin1Char('\n'));
    }
    const QJsonObject cuda = m_environment.value(QLatin1String("cuda")).toObject();
    const QJsonValue transformers = m_environment.value(QLatin1String("transformers"));
    lines << tr("Python %1 — %2").arg(m_environment.value(QLatin1String("python")).toString(),
                                       m_environment.value(QLatin1String("executable")).toString());
    lines << tr("torch %1").arg(torchVersion());
    lines << tr("transformers %1").arg(transformers.isString() ? transformers.toString() : tr("not installed"));
    QStringList devices;
    for (const QJsonValue &d : cuda.value(QLatin1String("devices")).toArray())
        devices << d.toString();
    const QJsonValue built = cuda.value(QLatin1String("built_with"));
    if (cuda.value(QLatin1String("available")).toBool())
        lines << tr("CUDA %1: %2").arg(built.toString(), devices.join(QStringLiteral(", ")));
    else
        lines << tr("CUDA: none available (torch built %1)")
                     .arg(built.isString() ? tr("with CUDA %1").arg(built.toString()) : tr("without CUDA"));
    return lines.join(QLatin1Char('\n'));
}

void ExportService::setRuntime(const PythonRuntime &runtime)
{
    if (runtime.commandLine() == m_client->runtime().commandLine())
        return;
    m_client->setRuntime(runtime); // kills a running worker; the next request starts the new one
    m_environment = {};
    setState(WorkerState::NotStarted);
    emit environmentChanged();
}

void ExportService::ensureWorker()
{
    if (m_helloId >= 0 || !m_environment.isEmpty())
        return;
    setState(WorkerState::Starting);
    m_helloId = m_client->hello();
}

void ExportService::onHello(const QJsonObject &result)
{
    m_environment = result;
    m_stateDetail.clear();
    setState(isExporting() ? WorkerState::Exporting : isRecording() ? WorkerState::Recording : WorkerState::Idle);
    emit environmentChanged();
}

void ExportService::start(const Capture &capture, const ConstraintSet &constraints, const ExportRequest &request,
                          const PhasedExport::Options &options)
{
    m_cancelling = false;
    ensureWorker(); // hello first: the versions and CUDA come with the first export
    m_run->start(capture, constraints, request, options);
    setState(WorkerState::Exporting);
}

bool ExportService::isExporting() const { return m_run->isRunning(); }

void ExportService::startRecording(const RecordRequest &request, const QString &projectPath)
{
    m_cancelling = false;
    ensureWorker();
    m_recording->start(request, projectPath);
    setState(WorkerState::Recording);
}

bool ExportService::isRecording() const { return m_recording->isRunning(); }

void ExportService::onRecordingFinished(const RecordingOutcome &outcome)
{
    if (m_state == WorkerState::Recording)
        setState(m_client->isWorkerRunning() ? WorkerState::Idle : WorkerState::NotStarted);
    emit recordingFinished(outcome);
}

void ExportService::cancel()
{
    if (!isBusy() && m_helloId < 0)
        return;
    m_cancelling = true;
    m_recording->cancel(); // kills the worker: no capture is left
    m_run->cancel(); // fails the export with kind "cancelled"; the run finishes
    m_client->cancel(); // and a hello still pending
    m_cancelling = false;
    m_helloId = -1;
    setState(WorkerState::NotStarted);
}

void ExportService::onRunFinished(const ExportReport &report)
{
    if (m_state == WorkerState::Exporting)
        setState(m_client->isWorkerRunning() ? WorkerState::Idle : WorkerState::Crashed);
    emit finished(report.outcome, report.readBacks);
}

} // namespace dimscope
