// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/exportservice.h"

#include "export/exportclient.h"
#include "export/exportphases.h"
#include "export/pythonruntime.h"

#include <QFutureWatcher>
#include <QJsonArray>
#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

namespace dimscope {

ExportService::ExportService(const PythonRuntime &runtime, QObject *parent)
    : QObject(parent), m_client(new ExportClient(this)), m_pipeline(new PhasedExport(m_client, this))
{
    m_client->setRuntime(runtime);
    connectClient();
    connectPipeline();
}

ExportService::~ExportService()
{
    // Nothing the client does while it stops the worker may reach this half-destroyed
    // service.
    m_client->disconnect(this);
    m_pipeline->disconnect(this);
    delete m_pipeline;
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
        if (id != m_helloId && isExporting())
            emit progress(stage, text, fraction);
    });
    connect(m_client, &ExportClient::logLine, this,
            [this](int, const QString &stream, const QString &text) { emit logLine(stream, text); });
}

// The pipeline's steps as one-line texts (the worker's own lines come through logLine).
void ExportService::connectPipeline()
{
    connect(m_pipeline, &PhasedExport::attemptStarted, this,
            [this](int attempt, const QVector<int> &calls, const QString &description, const ConstraintSet &) {
                if (attempt > 1)
                    emit step(tr("phase %1: calls %2 (%3), with the constraints inferred from them")
                                  .arg(attempt)
                                  .arg(ExportPhases::callsText(calls), description));
            });
    connect(m_pipeline, &PhasedExport::attemptSkipped, this,
            [this](int, const QVector<int> &, const QString &why) { emit step(why); });
    connect(m_pipeline, &PhasedExport::roundStarted, this, [this](int, int round) {
        if (round > 1)
            emit step(tr("fix loop round %1").arg(round));
    });
    connect(m_pipeline, &PhasedExport::fixesApplied, this,
            [this](int, int, const QStringList &applied, const QStringList &unapplied, const ConstraintSet &, bool) {
                for (const QString &line : applied)
                    emit step(tr("applied torch's fix: %1").arg(line));
                for (const QString &line : unapplied)
                    emit step(tr("not applied: %1").arg(line));
            });
    connect(m_pipeline, &PhasedExport::attemptFinished, this,
            [this](int attempt, bool, const QString &why) { emit step(tr("attempt %1: %2").arg(attempt).arg(why)); });
    connect(m_pipeline, &PhasedExport::finished, this, &ExportService::onPipelineFinished);
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
    setState(isExporting() ? WorkerState::Exporting : WorkerState::Idle);
    emit environmentChanged();
}

void ExportService::start(const Capture &capture, const ConstraintSet &constraints, const ExportRequest &request,
                          const PhasedExport::Options &options)
{
    ++m_generation;
    m_readingBack = false;
    m_cancelling = false;
    m_exportCapture = capture;
    ensureWorker(); // hello first: the versions and CUDA come with the first export
    m_pipeline->start(capture, constraints, request, options);
    setState(WorkerState::Exporting);
}

bool ExportService::isExporting() const { return m_pipeline->isRunning() || m_readingBack; }

void ExportService::cancel()
{
    if (!isExporting() && m_helloId < 0)
        return;
    m_cancelling = true;
    m_pipeline->stop();
    m_client->cancel(); // fails the export with kind "cancelled"; the pipeline finishes
    m_cancelling = false;
    m_helloId = -1;
    setState(WorkerState::NotStarted);
}

// Each .pt2 is inflated and parsed on a pool thread: a large program must not stall
// the GUI that drives this service.
void ExportService::onPipelineFinished(const PhasedExportOutcome &outcome)
{
    if (outcome.programs.isEmpty()) {
        readBackDone(outcome, {});
        return;
    }
    m_readingBack = true;
    const int generation = m_generation;
    auto *watcher = new QFutureWatcher<QVector<ProgramReadBack>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, outcome, generation] {
        watcher->deleteLater();
        if (generation == m_generation)
            readBackDone(outcome, watcher->result());
    });
    watcher->setFuture(QtConcurrent::run([outcome, capture = m_exportCapture] {
        QVector<ProgramReadBack> backs;
        for (const ExportedProgram &p : outcome.programs)
            backs << ProgramReadBack::of(p, capture);
        return backs;
    }));
}

void ExportService::readBackDone(const PhasedExportOutcome &outcome, const QVector<ProgramReadBack> &readBacks)
{
    m_readingBack = false;
    if (m_state == WorkerState::Exporting)
        setState(m_client->isWorkerRunning() ? WorkerState::Idle : WorkerState::Crashed);
    emit finished(outcome, readBacks);
}

} // namespace dimscope
