// SPDX-License-Identifier: GPL-3.0-or-later
#include "exportcontroller.h"

#include "export/exportclient.h"
#include "export/pythonruntime.h"
#include "document/exportprogress.h"
#include "document/exportresults.h"
#include "modelconsent.h"
#include "project/modelreference.h"
#include "openmodeldialog.h"
#include "document/projectdocument.h"
#include "settings/settingskeys.h"
#include "export/suggestedfixapplier.h"
#include "export/heldoutstructure.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QUndoStack>
#include <QJsonArray>
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
    : QObject(parent), m_document(document), m_window(window), m_service(new ExportService(runtimeFromSettings(), this)),
      m_progress(new ExportProgress(this))
{
    m_progress->follow(m_service);
    createActions();
    connectService();
    if (m_document) {
        connect(m_document, &ProjectDocument::captureChanged, this, &ExportController::resetForNewDocument);
        connect(m_document, &ProjectDocument::exportOptionsChanged, this, &ExportController::updateActions);
    }
    updateActions();
}

ExportController::~ExportController()
{
    // Nothing the service does while it stops the worker may reach this half-destroyed
    // controller.
    m_service->disconnect(this);
    delete m_service;
}

void ExportController::createActions()
{
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
    m_verifyWith = new QAction(tr("&Verify With Another Capture…"), this);
    m_verifyWith->setObjectName(QStringLiteral("actionVerifyWith"));
    connect(m_verifyWith, &QAction::triggered, this, &ExportController::chooseHeldOutCapture);
    m_stopVerifyingWith = new QAction(tr("Stop Verifying With the Held-Out Capture"), this);
    m_stopVerifyingWith->setObjectName(QStringLiteral("actionStopVerifyingWith"));
    connect(m_stopVerifyingWith, &QAction::triggered, this, &ExportController::forgetHeldOutCapture);
    m_cancel = new QAction(tr("Cancel Export"), this);
    m_cancel->setObjectName(QStringLiteral("actionCancelExport"));
    connect(m_cancel, &QAction::triggered, this, &ExportController::cancel);
}

// The service's events in the actions and the window's messages.
void ExportController::connectService()
{
    connect(m_service, &ExportService::stateChanged, this, [this](ExportService::WorkerState state) {
        updateActions();
        emit stateChanged(state);
    });
    connect(m_service, &ExportService::environmentChanged, this, [this] {
        updateActions();
        emit environmentChanged();
    });
    connect(m_service, &ExportService::workerFailedToStart, this,
            [this](const QString &why) { emit message(tr("The export worker did not start: %1").arg(why)); });
    connect(m_service, &ExportService::finished, this, &ExportController::updateActions);
}

// Another capture or project replaced the document (or it was closed): an export
// still running for it is cancelled (the document's results, cleared first, no longer
// await it) and the output file chosen for it is forgotten.
void ExportController::resetForNewDocument()
{
    if (isExporting())
        m_service->cancel();
    m_outputPath.clear();
    m_lastError.clear();
    delete m_fixesFollower; // the fixes' step belonged to the previous document's history
    updateActions();
}

void ExportController::reloadRuntime() { m_service->setRuntime(runtimeFromSettings()); }

void ExportController::updateActions()
{
    const bool busy = m_service->isBusy(); // an export or a recording
    const bool haveCapture = m_document && m_document->hasCapture();
    const QString noCapture = tr("Open a capture or a project first.");
    m_cpu->setEnabled(haveCapture && !busy);
    m_cpu->setToolTip(!haveCapture ? noCapture
                      : busy       ? (isExporting() ? tr("An export is running.") : tr("A recording is running."))
                                   : tr("torch.export on the CPU with the current constraints, then replay every captured call"));
    const QJsonObject environment = m_service->environment();
    const QString cudaReason = cudaUnavailableReason();
    m_cuda->setEnabled(cudaReason.isEmpty() && haveCapture && !busy);
    // Why it is greyed is in the item itself, not only in its tooltip.
    m_cuda->setText(cudaReason.isEmpty()      ? tr("Export on C&UDA")
                    : environment.isEmpty() ? tr("Export on C&UDA (not known yet)")
                                            : tr("Export on C&UDA (no CUDA here)"));
    const QJsonArray devices = environment.value(QLatin1String("cuda")).toObject().value(QLatin1String("devices")).toArray();
    const QString device = devices.isEmpty() ? tr("the CUDA device") : devices.at(0).toString();
    m_cuda->setToolTip(!cudaReason.isEmpty() ? cudaReason : !haveCapture ? noCapture : tr("torch.export on %1").arg(device));
    m_cancel->setEnabled(busy);
    m_verifyWith->setEnabled(haveCapture && !busy);
    m_verifyWith->setToolTip(tr("Export again, replaying the calls of a second capture of this model (other prompts, "
                                "batch sizes, lengths) through the programs in a fresh interpreter"));
    const QString heldOut = m_document ? m_document->exportOptions().heldOutCapture : QString();
    m_stopVerifyingWith->setEnabled(!heldOut.isEmpty() && !busy);
    m_stopVerifyingWith->setToolTip(heldOut.isEmpty() ? tr("No held-out capture is set")
                                                      : tr("Exports stop replaying %1").arg(QDir::toNativeSeparators(heldOut)));
}

QString ExportController::cudaUnavailableReason() const
{
    const QJsonObject environment = m_service->environment();
    if (environment.isEmpty()) {
        return state() == WorkerState::Crashed
                   ? tr("The export worker is not running (%1); CUDA is unknown.").arg(m_service->stateDetail())
                   : tr("CUDA availability is not known yet: the export worker reports it once it has started.");
    }
    if (cudaAvailable())
        return {};
    const QJsonValue built = environment.value(QLatin1String("cuda")).toObject().value(QLatin1String("built_with"));
    return built.isString() ? tr("The worker's torch %1 (CUDA %2) sees no CUDA device.").arg(torchVersion(), built.toString())
                            : tr("The worker's torch %1 is built without CUDA.").arg(torchVersion());
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
    emit exportRefused(text);
    emit message(text);
}

// A project's model runs only once the user said yes to what it resolves to
// (ModelConsent). A reference that claims dimscope's package but holds a path never
// runs, whoever chose it.
bool ExportController::mayRunModel(Consent consent)
{
    const QString ref = m_document->modelRef();
    const QString disguised = ModelReference::disguise(ref);
    if (!disguised.isEmpty()) {
        fail(tr("Not exported: %1.").arg(disguised));
        return false;
    }
    if (consent == Consent::Given || !m_document->isModelRefFromProject())
        return true;
    const QString refused = ModelConsent::refusal(m_document->projectPath(), ref);
    if (!refused.isEmpty()) {
        fail(tr("Not exported: %1.").arg(refused));
        return false;
    }
    if (!ModelConsent::needsApproval(m_document->projectPath(), ref))
        return true;
    if (ModelConsent::ask(m_window, m_document->projectPath(), ref))
        return true;
    fail(tr("Not exported: the project's model %1 was not run (File > Open Model… chooses another).")
             .arg(m_document->modelRef()));
    return false;
}

bool ExportController::startExport(const QString &device, Consent consent)
{
    m_lastError.clear();
    if (m_service->isBusy()) {
        fail(isExporting() ? tr("An export is already running.") : tr("A recording is running."));
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
    if (!mayRunModel(consent))
        return false;
    QString output = outputPath();
    if (output.isEmpty() || !QFileInfo(QFileInfo(output).absolutePath()).isWritable()) {
        if (!chooseOutputFile()) {
            fail(tr("Export needs a writable place for the .pt2 (Export > Export Output File…)."));
            return false;
        }
        output = outputPath();
    }
    ExportOptions options = m_document->exportOptions();
    if (!options.heldOutCapture.isEmpty()) {
        const QString why = heldOutMismatch(options.heldOutCapture);
        if (!why.isEmpty()) {
            fail(tr("Not exported: the held-out capture cannot be replayed: %1 (Export > Stop Verifying With the "
                    "Held-Out Capture forgets it)").arg(why));
            return false;
        }
    }
    options.device = device;
    const ExportRequest request = ExportRequest::make(m_document->modelRef(), m_document->capturePath(), output, options);
    m_lastDevice = device;
    const QString title = tr("Exporting %1 on %2 → %3").arg(request.model, device, QDir::toNativeSeparators(output));
    m_progress->start(title);
    emit exportStarted(title);
    m_document->exportResults()->follow(m_service);
    // The capture and constraints as they are now: edits made while it runs do not
    // change what it exports nor how its programs are read back.
    m_service->start(m_document->capture(), m_document->constraints(), request, PhasedExport::Options::from(options));
    updateActions();
    return true;
}

void ExportController::cancel() { m_service->cancel(); }

QStringList ExportController::applyFixes(const QStringList &fixes)
{
    if (!m_document)
        return {};
    // The document's results are those of its own exports (a new document clears them);
    // only their fixes are applied, in torch's order.
    const ExportResult last = m_document->exportResults()->lastResult();
    QStringList lines;
    for (const QString &fix : last.failure.fixes)
        if (fixes.contains(fix))
            lines << fix;
    if (lines.isEmpty())
        return {};
    // The bare fix lines are all the applier needs; torch's message would add its
    // violation lines, which the result view already shows.
    const SuggestedFixApplier::Result r = SuggestedFixApplier::apply(m_document->constraints(), lines.join(QLatin1Char('\n')));
    QStringList applied, unapplied;
    for (const SuggestedFix &f : r.applied)
        applied << f.line;
    for (const SuggestedFixApplier::Unapplied &u : r.unapplied)
        unapplied << QStringLiteral("%1: %2").arg(u.line, u.reason);
    if (r.constraints != m_document->constraints()) {
        m_document->replaceConstraints(r.constraints, tr("Apply torch's suggested fixes"));
        followFixesStep();
    }
    emit fixesApplied(applied, unapplied);
    return unapplied;
}

// The step just pushed: undone while the stack's index is below it; gone (and no
// longer followed) once another edit replaced it after an undo.
void ExportController::followFixesStep()
{
    QUndoStack *stack = m_document->undoStack();
    delete m_fixesFollower;
    m_fixesFollower = new QObject(this);
    m_fixesIndex = stack->index();
    m_fixesCommand = stack->command(m_fixesIndex - 1);
    connect(stack, &QUndoStack::indexChanged, m_fixesFollower, [this, stack](int index) {
        if (stack->count() < m_fixesIndex || stack->command(m_fixesIndex - 1) != m_fixesCommand) {
            m_fixesFollower->deleteLater();
            emit fixesUndone(true);
            return;
        }
        emit fixesUndone(index < m_fixesIndex);
    });
}

bool ExportController::reexport() { return startExport(m_lastDevice); }

bool ExportController::reexportWithExampleCall(int call)
{
    if (!m_document)
        return false;
    ExportOptions options = m_document->exportOptions();
    options.exampleCall = call;
    m_document->setExportOptions(options); // saved with the project, shown in Export Options
    return reexport();
}

bool ExportController::reexportWithPhases()
{
    if (!m_document)
        return false;
    ExportOptions options = m_document->exportOptions();
    options.fixLoop = true;
    m_document->setExportOptions(options);
    return reexport();
}

QString ExportController::heldOutMismatch(const QString &path) const
{
    return HeldOutStructure::fileMismatch(m_document->capture(), QFileInfo(m_document->capturePath()).fileName(), path);
}

bool ExportController::chooseHeldOutCapture()
{
    const QString folder = m_document && !m_document->capturePath().isEmpty()
                               ? QFileInfo(m_document->capturePath()).absolutePath()
                               : QString();
    const QString path = QFileDialog::getOpenFileName(m_window, tr("Verify With Another Capture"), folder,
                                                      tr("Captures (*.safetensors)"));
    return !path.isEmpty() && exportVerifyingWith(path);
}

bool ExportController::exportVerifyingWith(const QString &capture)
{
    m_lastError.clear();
    if (!m_document || !m_document->hasCapture()) {
        fail(tr("Nothing to export: open a capture or a project first."));
        return false;
    }
    if (m_service->isBusy()) {
        fail(isExporting() ? tr("An export is already running.") : tr("A recording is running."));
        return false;
    }
    const QString path = QFileInfo(capture).absoluteFilePath();
    const QString why = heldOutMismatch(path);
    if (!why.isEmpty()) {
        fail(tr("Not verified with %1: %2").arg(QDir::toNativeSeparators(path), why));
        return false;
    }
    ExportOptions options = m_document->exportOptions();
    options.heldOutCapture = path;
    m_document->setExportOptions(options); // saved with the project: every export replays it
    return reexport();
}

void ExportController::forgetHeldOutCapture()
{
    if (!m_document)
        return;
    ExportOptions options = m_document->exportOptions();
    options.heldOutCapture.clear();
    m_document->setExportOptions(options);
    updateActions();
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
        // A .pt2 is a document of its own: the window replaces the open one with it.
        emit pt2Requested(ref);
        return true;
    }
    // A path the user typed is relative to where dimscope was started; the worker
    // gets it absolute, whatever folder it runs in.
    if (m_document)
        m_document->setModelRef(ModelReference::absoluteIn(ref, QDir::current()));
    return true;
}

} // namespace dimscope
