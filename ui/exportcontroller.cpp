#include "exportcontroller.h"

#include "export/dimintent.h"
#include "export/exportclient.h"
#include "export/exportphases.h"
#include "export/phasedexport.h"
#include "export/pythonruntime.h"
#include "exportpanel.h"
#include "exportresultview.h"
#include "modelconsent.h"
#include "openmodeldialog.h"
#include "projectdocument.h"
#include "pt2/pt2reader.h"
#include "settingskeys.h"
#include "shapes/suggestedfixapplier.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSettings>
#include <QWidget>

namespace dimscope {

namespace {

PythonRuntime runtimeFromSettings()
{
    const QString chosen = QSettings().value(settings::PythonInterpreter).toString();
    return chosen.isEmpty() ? PythonRuntime::discover() : PythonRuntime::fromInterpreter(chosen);
}

} // namespace

ExportController::ExportController(ProjectDocument *document, QWidget *window, QObject *parent)
    : QObject(parent), m_document(document), m_window(window), m_client(new ExportClient(this)),
      m_pipeline(new PhasedExport(m_client, this)), m_panel(new ExportPanel), m_result(new ExportResultView)
{
    m_client->setRuntime(runtimeFromSettings());

    m_cpu = new QAction(tr("Export on &CPU"), this);
    m_cpu->setObjectName(QStringLiteral("actionExportCpu"));
    m_cpu->setShortcut(QKeySequence(QStringLiteral("Ctrl+E")));
    connect(m_cpu, &QAction::triggered, this, [this] { startExport(QStringLiteral("cpu")); });
    m_cuda = new QAction(tr("Export on C&UDA"), this);
    m_cuda->setObjectName(QStringLiteral("actionExportCuda"));
    connect(m_cuda, &QAction::triggered, this, [this] { startExport(QStringLiteral("cuda")); });
    m_openModel = new QAction(tr("Open &Model…"), this);
    m_openModel->setObjectName(QStringLiteral("actionOpenModel"));
    connect(m_openModel, &QAction::triggered, this, &ExportController::openModelDialog);
    m_outputFile = new QAction(tr("Export &Output File…"), this);
    m_outputFile->setObjectName(QStringLiteral("actionExportOutputFile"));
    m_outputFile->setToolTip(tr("Where Export writes the .pt2"));
    connect(m_outputFile, &QAction::triggered, this, &ExportController::chooseOutputFile);
    m_cancel = new QAction(tr("Cancel Export"), this);
    m_cancel->setObjectName(QStringLiteral("actionCancelExport"));
    connect(m_cancel, &QAction::triggered, this, &ExportController::cancel);

    connect(m_panel, &ExportPanel::cancelRequested, this, &ExportController::cancel);
    connect(m_result, &ExportResultView::applyFixesRequested, this, &ExportController::applyFixes);
    connect(m_result, &ExportResultView::reexportRequested, this, &ExportController::reexport);

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
    connect(m_client, &ExportClient::requestFailed, this,
            [this](int id, const QString &, const WorkerFailure &failure) {
                if (id != m_helloId)
                    return;
                m_helloId = -1;
                m_stateDetail = failure.message;
                if (failure.kind == QLatin1String("cancelled"))
                    return; // the user's doing, and the Export panel says so
                setState(WorkerState::Crashed);
                emit message(tr("The export worker did not start: %1").arg(failure.message));
            });
    connect(m_client, &ExportClient::progress, this,
            [this](int id, const QString &stage, const QString &text, double fraction) {
                if (id != m_helloId && isExporting())
                    m_panel->setProgress(stage, text, fraction);
            });
    connect(m_client, &ExportClient::logLine, this, [this](int, const QString &stream, const QString &text) {
        m_panel->appendLog(stream, text);
    });
    connectPipeline();
    if (m_document) {
        connect(m_document, &ProjectDocument::captureChanged, this, &ExportController::updateActions);
        connect(m_document, &ProjectDocument::captureChanged, this, [this] { m_outputPath.clear(); });
    }
    updateActions();
}

ExportController::~ExportController()
{
    // Nothing the client does while it stops the worker may reach this half-destroyed
    // controller.
    m_client->disconnect(this);
    delete m_client;
    // The panel and the view belong to docks once shown; free them if they never were.
    if (m_panel && !m_panel->parent())
        delete m_panel;
    if (m_result && !m_result->parent())
        delete m_result;
}

QString ExportController::stateName(WorkerState state)
{
    switch (state) {
    case WorkerState::NotStarted:
        return tr("not started");
    case WorkerState::Starting:
        return tr("starting");
    case WorkerState::Idle:
        return tr("idle");
    case WorkerState::Exporting:
        return tr("exporting");
    case WorkerState::Crashed:
        return tr("crashed");
    }
    return {};
}

void ExportController::setState(WorkerState state)
{
    if (m_state == state)
        return;
    m_state = state;
    updateActions();
    emit stateChanged(state);
}

QString ExportController::torchVersion() const { return m_environment.value(QLatin1String("torch")).toString(); }

bool ExportController::cudaAvailable() const
{
    return m_environment.value(QLatin1String("cuda")).toObject().value(QLatin1String("available")).toBool();
}

QString ExportController::environmentDescription() const
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

void ExportController::reloadRuntime()
{
    const PythonRuntime runtime = runtimeFromSettings();
    if (runtime.commandLine() == m_client->runtime().commandLine())
        return;
    m_client->setRuntime(runtime); // kills a running worker; the next request starts the new one
    m_environment = {};
    setState(WorkerState::NotStarted);
    emit environmentChanged();
}

void ExportController::ensureWorker()
{
    if (m_helloId >= 0 || !m_environment.isEmpty())
        return;
    setState(WorkerState::Starting);
    m_helloId = m_client->hello();
}

void ExportController::onHello(const QJsonObject &result)
{
    m_environment = result;
    m_stateDetail.clear();
    setState(isExporting() ? WorkerState::Exporting : WorkerState::Idle);
    updateActions();
    emit environmentChanged();
}

void ExportController::updateActions()
{
    const bool busy = isExporting();
    const bool haveCapture = m_document && m_document->hasCapture();
    const QString noCapture = tr("Open a capture or a project first.");
    m_cpu->setEnabled(haveCapture && !busy);
    m_cpu->setToolTip(!haveCapture ? noCapture
                      : busy       ? tr("An export is running.")
                                   : tr("torch.export on the CPU with the current constraints, then replay every captured call"));
    QString cudaReason;
    if (m_environment.isEmpty()) {
        cudaReason = m_state == WorkerState::Crashed
                         ? tr("The export worker is not running (%1); CUDA is unknown.").arg(m_stateDetail)
                         : tr("CUDA availability is not known yet: the export worker reports it once it has started.");
    } else if (!cudaAvailable()) {
        const QJsonValue built = m_environment.value(QLatin1String("cuda")).toObject().value(QLatin1String("built_with"));
        cudaReason = built.isString()
                         ? tr("The worker's torch %1 (CUDA %2) sees no CUDA device.").arg(torchVersion(), built.toString())
                         : tr("The worker's torch %1 is built without CUDA.").arg(torchVersion());
    }
    m_cuda->setEnabled(cudaReason.isEmpty() && haveCapture && !busy);
    const QJsonArray devices = m_environment.value(QLatin1String("cuda")).toObject().value(QLatin1String("devices")).toArray();
    const QString device = devices.isEmpty() ? tr("the CUDA device") : devices.at(0).toString();
    m_cuda->setToolTip(!cudaReason.isEmpty() ? cudaReason : !haveCapture ? noCapture : tr("torch.export on %1").arg(device));
    m_cancel->setEnabled(busy);
}

QString ExportController::defaultOutputPath() const
{
    if (!m_document)
        return {};
    const QString base = !m_document->projectPath().isEmpty() ? m_document->projectPath() : m_document->capturePath();
    if (base.isEmpty())
        return {};
    const QFileInfo info(base);
    return info.absoluteDir().filePath(info.completeBaseName() + QStringLiteral(".pt2"));
}

QString ExportController::outputPath() const { return m_outputPath.isEmpty() ? defaultOutputPath() : m_outputPath; }

bool ExportController::chooseOutputFile()
{
    QSettings settings;
    const QString suggested = outputPath().isEmpty()
                                  ? settings.value(settings::LastExportFolder).toString()
                                  : outputPath();
    const QString path = QFileDialog::getSaveFileName(m_window, tr("Export to"), suggested,
                                                      tr("Exported programs (*.pt2)"));
    if (path.isEmpty())
        return false;
    m_outputPath = path.endsWith(QLatin1String(".pt2")) ? path : path + QStringLiteral(".pt2");
    settings.setValue(settings::LastExportFolder, QFileInfo(m_outputPath).absolutePath());
    return true;
}

void ExportController::fail(const QString &text)
{
    m_lastError = text;
    m_panel->finished(false, text);
    emit message(text);
}

bool ExportController::startExport(const QString &device)
{
    m_lastError.clear();
    if (isExporting()) {
        fail(tr("An export is already running."));
        return false;
    }
    if (!m_document || !m_document->hasCapture()) {
        fail(tr("Nothing to export: open a capture or a project first."));
        return false;
    }
    if (m_document->modelRef().isEmpty() && !openModelDialog())
        return false;
    if (m_document->modelRef().isEmpty()) {
        fail(tr("Export needs the model: File > Open Model…"));
        return false;
    }
    if (m_document->isModelRefFromProject()
        && ModelConsent::needsApproval(m_document->projectPath(), m_document->modelRef())
        && !ModelConsent::ask(m_window, m_document->projectPath(), m_document->modelRef())) {
        fail(tr("Not exported: the project's model %1 was not run (File > Open Model… chooses another).")
                 .arg(m_document->modelRef()));
        return false;
    }
    QString output = outputPath();
    if (output.isEmpty() || !QFileInfo(QFileInfo(output).absolutePath()).isWritable()) {
        if (!chooseOutputFile()) {
            fail(tr("Export needs a writable place for the .pt2 (Export > Export Output File…)."));
            return false;
        }
        output = outputPath();
    }
    const ExportOptions options = m_document->exportOptions();
    m_exportConstraints = m_document->constraints();
    m_exportCapture = m_document->capture();

    ExportRequest request;
    request.model = m_document->modelRef();
    request.capture = m_document->capturePath();
    request.output = output;
    request.device = device;
    request.strict = options.strict;
    request.call = options.exampleCall;
    m_lastDevice = device;
    m_cancelling = false;
    ensureWorker(); // hello first: the versions and CUDA come with the first export
    PhasedExport::Options pipeline;
    pipeline.fixLoop = options.fixLoop;
    pipeline.phases = options.fixLoop;
    m_panel->started(tr("Exporting %1 on %2 → %3").arg(request.model, device, QDir::toNativeSeparators(output)));
    m_pipeline->start(m_exportCapture, m_exportConstraints, request, pipeline);
    setState(WorkerState::Exporting);
    updateActions();
    emit exportStarted(device, output);
    return true;
}

bool ExportController::isExporting() const { return m_pipeline->isRunning(); }

// The pipeline's steps, in the Export panel's log (the worker's own lines come too).
void ExportController::connectPipeline()
{
    connect(m_pipeline, &PhasedExport::attemptStarted, this,
            [this](int attempt, const QVector<int> &calls, const QString &description, const ConstraintSet &) {
                if (attempt > 1)
                    m_panel->appendLog(QStringLiteral("dimscope"),
                                       tr("phase %1: calls %2 (%3), with the constraints inferred from them")
                                           .arg(attempt)
                                           .arg(ExportPhases::callsText(calls), description));
            });
    connect(m_pipeline, &PhasedExport::attemptSkipped, this,
            [this](int, const QVector<int> &, const QString &why) { m_panel->appendLog(QStringLiteral("dimscope"), why); });
    connect(m_pipeline, &PhasedExport::roundStarted, this, [this](int, int round) {
        if (round > 1)
            m_panel->appendLog(QStringLiteral("dimscope"), tr("fix loop round %1").arg(round));
    });
    connect(m_pipeline, &PhasedExport::fixesApplied, this,
            [this](int, int, const QStringList &applied, const QStringList &unapplied, const ConstraintSet &, bool) {
                for (const QString &line : applied)
                    m_panel->appendLog(QStringLiteral("dimscope"), tr("applied torch's fix: %1").arg(line));
                for (const QString &line : unapplied)
                    m_panel->appendLog(QStringLiteral("dimscope"), tr("not applied: %1").arg(line));
            });
    connect(m_pipeline, &PhasedExport::attemptFinished, this, [this](int attempt, bool, const QString &why) {
        m_panel->appendLog(QStringLiteral("dimscope"), tr("attempt %1: %2").arg(attempt).arg(why));
    });
    connect(m_pipeline, &PhasedExport::finished, this, &ExportController::onPipelineFinished);
}

void ExportController::cancel()
{
    if (!isExporting() && m_helloId < 0)
        return;
    m_cancelling = true;
    m_pipeline->stop();
    m_client->cancel(); // fails the export with kind "cancelled"; onExportFinished follows
    m_cancelling = false;
    m_helloId = -1;
    setState(WorkerState::NotStarted);
}

namespace {

// A program read back from its .pt2, its symbols mapped to the Dim names of the
// constraints it was exported with.
ExportResultView::ReadBack readBack(const ExportedProgram &p, const Capture &capture)
{
    ExportResultView::ReadBack back;
    back.program = Pt2Reader::open(p.result.output, &back.error);
    if (back.program && !capture.calls.isEmpty()) {
        const int call = qBound(0, p.result.exampleCall, int(capture.calls.size()) - 1);
        back.mapping = DimIntent::fromConstraints(capture.calls.at(call).inputs, p.constraints).map(*back.program);
    }
    return back;
}

} // namespace

void ExportController::onPipelineFinished(const PhasedExportOutcome &outcome)
{
    m_lastOutcome = outcome;
    m_lastResult = outcome.programs.isEmpty() ? outcome.firstAttempt : outcome.programs.first().result;
    m_lastProgram.reset();
    m_lastMapping.reset();
    if (m_state == WorkerState::Exporting)
        setState(m_client->isWorkerRunning() ? WorkerState::Idle : WorkerState::Crashed);
    updateActions();

    QVector<ExportResultView::ReadBack> readBacks;
    for (const ExportedProgram &p : outcome.programs)
        readBacks << readBack(p, m_exportCapture);
    if (!readBacks.isEmpty()) {
        m_lastProgram = readBacks.first().program;
        m_lastMapping = readBacks.first().mapping;
    }
    m_result->showOutcome(outcome, readBacks);
    const ExportResult &result = m_lastResult;
    if (outcome.cancelled)
        m_panel->finished(false, tr("Export cancelled; the next export starts a fresh worker."));
    else if (outcome.servesEveryCall() && outcome.programs.size() == 1 && result.ok)
        m_panel->finished(true, tr("Exported %1; %2 of %3 captured calls replay.")
                                    .arg(QDir::toNativeSeparators(result.output))
                                    .arg(result.verification.size())
                                    .arg(result.verification.size()));
    else if (outcome.servesEveryCall())
        m_panel->finished(true, tr("Exported %n program(s): %1.", nullptr, int(outcome.programs.size()))
                                    .arg(outcome.summary()));
    else if (!outcome.programs.isEmpty())
        m_panel->finished(false, tr("Exported %n program(s), but %1.", nullptr, int(outcome.programs.size()))
                                     .arg(outcome.summary()));
    else
        m_panel->finished(false, tr("Export failed (%1): %2").arg(result.failure.kind, result.failure.message));
    emit exportDone(result);
}

QStringList ExportController::applyFixes()
{
    const WorkerFailure &failure = m_lastResult.failure;
    if (!m_document || !failure.hasFixes())
        return {};
    // The bare fix lines are all the applier needs; torch's message would add its
    // violation lines, which the result view already shows.
    const SuggestedFixApplier::Result r = SuggestedFixApplier::apply(m_document->constraints(), failure.fixes.join(QLatin1Char('\n')));
    QStringList applied, unapplied;
    for (const SuggestedFix &f : r.applied)
        applied << f.line;
    for (const SuggestedFixApplier::Unapplied &u : r.unapplied)
        unapplied << QStringLiteral("%1: %2").arg(u.line, u.reason);
    if (r.constraints != m_document->constraints())
        m_document->replaceConstraints(r.constraints, tr("Apply torch's suggested fixes"));
    m_result->showFixOutcome(applied, unapplied);
    emit fixesApplied(applied, unapplied);
    return unapplied;
}

bool ExportController::reexport() { return startExport(m_lastDevice); }

bool ExportController::openPt2(const QString &path, QString *error)
{
    QString why;
    const std::optional<Pt2Program> program = Pt2Reader::open(path, &why);
    if (!program) {
        if (error)
            *error = why;
        return false;
    }
    m_lastProgram = program;
    m_lastMapping.reset();
    m_result->showProgram(*program);
    emit pt2Opened(path);
    return true;
}

bool ExportController::openModelDialog()
{
    OpenModelDialog dialog(m_window);
    if (m_document)
        dialog.setReference(m_document->modelRef());
    if (dialog.exec() != QDialog::Accepted)
        return false;
    const QString ref = dialog.reference();
    if (dialog.kind() == OpenModelDialog::Kind::Pt2File) {
        QString error;
        if (!openPt2(ref, &error)) {
            emit message(tr("Cannot open %1: %2").arg(ref, error));
            return false;
        }
        return true;
    }
    if (m_document)
        m_document->setModelRef(ref);
    return true;
}

} // namespace dimscope
