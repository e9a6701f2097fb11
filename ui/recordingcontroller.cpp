// SPDX-License-Identifier: GPL-3.0-or-later
#include "recordingcontroller.h"

#include "document/documentopener.h"
#include "document/exportprogress.h"
#include "document/projectdocument.h"
#include "export/exportservice.h"
#include "export/remotecodefiles.h"
#include "exportcontroller.h"
#include "modelconsent.h"
#include "newrecordingdialog.h"
#include "projectcontroller.h"
#include "recording/recordingform.h"
#include "recording/recordingsummary.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QWidget>

namespace dimscope {

RecordingController::RecordingController(ProjectDocument *document, ExportController *exporter, ProjectController *project,
                                         QWidget *window)
    : QObject(window), m_document(document), m_exporter(exporter), m_project(project), m_window(window)
{
    m_new = new QAction(tr("New &Recording…"), this);
    m_new->setObjectName(QStringLiteral("actionNewRecording"));
    m_new->setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+R")));
    m_new->setToolTip(tr("Record a capture from a model folder and prompts: generate() runs in the export worker"));
    connect(m_new, &QAction::triggered, this, &RecordingController::newRecording);
    m_more = new QAction(tr("Record &More Calls…"), this);
    m_more->setObjectName(QStringLiteral("actionRecordMore"));
    connect(m_more, &QAction::triggered, this, &RecordingController::recordMore);
    connect(m_exporter->service(), &ExportService::recordingFinished, this, &RecordingController::onFinished);
    connect(m_exporter->service(), &ExportService::stateChanged, this, &RecordingController::updateActions);
    connect(m_document, &ProjectDocument::captureChanged, this, &RecordingController::updateActions);
    connect(m_document, &ProjectDocument::loadingChanged, this, &RecordingController::updateActions);
    updateActions();
}

bool RecordingController::isRecording() const { return m_exporter->service()->isRecording(); }

void RecordingController::updateActions()
{
    const bool busy = m_exporter->service()->isBusy();
    m_new->setEnabled(!busy);
    // Only a recording of prompts: an inputs script's calls are the script's, not more of them.
    const bool recorded = m_document->hasCapture() && !m_document->isLoading()
                          && m_document->capture().recording.value(QLatin1String("batches")).isArray();
    m_more->setEnabled(recorded && !busy);
    m_more->setToolTip(busy       ? tr("The worker is busy.")
                       : recorded ? tr("Record the capture's calls again and more from new prompts, into a new capture")
                                  : tr("Only for a capture dimscope recorded from prompts (File > New Recording…): its "
                                       "prompts are known"));
}

bool RecordingController::newRecording()
{
    NewRecordingDialog dialog(m_window);
    dialog.setProjectModel(m_document->hasCapture() ? m_document->modelRef() : QString());
    if (dialog.exec() != QDialog::Accepted)
        return false;
    return start(dialog.form(), dialog.replaceOutputs());
}

bool RecordingController::recordMore()
{
    if (!m_more->isEnabled())
        return false;
    NewRecordingDialog dialog(m_window);
    dialog.setMoreCalls(RecordingForm::moreCalls(m_document->capture().recording, m_document->capturePath()));
    if (dialog.exec() != QDialog::Accepted)
        return false;
    return start(dialog.form(), dialog.replaceOutputs());
}

bool RecordingController::refuse(const QString &why)
{
    m_lastError = why;
    emit recordingRefused(why);
    return false;
}

// A folder whose auto_map names code runs it only with the user's yes to exactly those
// files; false when the user said no (or the folder's JSON cannot be read).
bool RecordingController::consentToRemoteCode(const QString &folder, QJsonObject *consent)
{
    QString error;
    const RemoteCodeFiles code = RemoteCodeFiles::of(folder, &error);
    if (!error.isEmpty())
        return refuse(tr("Not recorded: %1").arg(error));
    if (code.isEmpty())
        return true;
    if (!ModelConsent::askRemoteCode(m_window, folder, code.sources(), code.files()))
        return refuse(tr("Not recorded: %1: field auto_map asks transformers to run the folder's own Python code (%2), "
                         "and it was not allowed. Nothing of the folder was imported.")
                          .arg(QDir::toNativeSeparators(code.sources().constFirst()), code.files().keys().join(QStringLiteral(", "))));
    *consent = code.consent();
    return true;
}

// An inputs script is code the user named: it runs only with a yes to its file and that
// file's SHA-256, which the worker checks before importing it.
bool RecordingController::consentToInputsScript(const RecordingForm &form, QString *sha256)
{
    const QString file = form.inputsScriptFile();
    QString error;
    const QString hash = file.isEmpty() ? QString() : form.inputsScriptSha256(&error);
    if (!error.isEmpty())
        return refuse(tr("Not recorded: inputs script: %1").arg(error));
    if (!ModelConsent::askInputsScript(m_window, form.resolvedInputsScript(), file, hash))
        return refuse(tr("Not recorded: the inputs script %1 was not allowed to run. Nothing of it was imported.")
                          .arg(QDir::toNativeSeparators(form.resolvedInputsScript())));
    *sha256 = hash;
    return true;
}

bool RecordingController::start(const RecordingForm &form, bool replace)
{
    m_lastError.clear();
    if (m_exporter->service()->isBusy())
        return refuse(tr("Not recorded: the worker is busy with an export or a recording."));
    QString error;
    std::optional<RecordRequest> request = form.request(&error);
    if (!request)
        return refuse(tr("Not recorded: %1").arg(error));
    if (!replace && !form.existingOutputs().isEmpty())
        return refuse(tr("Not recorded: %1 exists.").arg(form.existingOutputs().join(QStringLiteral(", "))));
    if (form.modelKind() == RecordingForm::ModelKind::Folder && !consentToRemoteCode(request->model, &request->remoteCodeConsent))
        return false;
    if (form.useInputsScript && !consentToInputsScript(form, &request->inputsScriptSha256))
        return false;
    request->overwrite = replace;
    m_model = request->model;
    const QString project = QFileInfo(form.base, form.projectPath.trimmed()).absoluteFilePath();
    const QString inputs = form.useInputsScript ? tr("the inputs script %1").arg(QDir::toNativeSeparators(request->inputsScript))
                                                : tr("%1 generate() call(s)").arg(request->prompts.batches().size());
    emit recordingStarted(tr("Recording %1: %2 → %3")
                              .arg(QDir::toNativeSeparators(request->model), inputs, QDir::toNativeSeparators(request->output)));
    m_running = true;
    m_exporter->progress()->start(tr("Recording %1").arg(QFileInfo(request->model).fileName()));
    m_exporter->service()->startRecording(*request, project);
    updateActions();
    return true;
}

void RecordingController::onFinished(const RecordingOutcome &outcome)
{
    if (!m_running)
        return;
    m_running = false;
    m_exporter->progress()->finish();
    updateActions();
    if (!outcome.ok()) {
        emit recordingFinished(false, outcome.cancelled() ? outcome.message
                                                          : tr("Recording failed: %1").arg(outcome.message));
        return;
    }
    openRecorded(outcome);
}

// The project opens as any project does (unsaved edits asked about first); its model
// is the one the user just chose, so exporting it asks nothing.
void RecordingController::openRecorded(const RecordingOutcome &outcome)
{
    QString summary = RecordingSummary::finished(outcome.result);
    if (!outcome.warnings.isEmpty())
        summary += tr(" (%1 warning(s) about the inferred Dims)").arg(outcome.warnings.size());
    auto *once = new QObject(this);
    DocumentOpener *opener = m_project->opener();
    const QString project = QFileInfo(outcome.projectPath).canonicalFilePath();
    const QString model = m_model;
    connect(opener, &DocumentOpener::opened, once, [this, once, project, model, summary] {
        once->deleteLater();
        if (QFileInfo(m_document->projectPath()).canonicalFilePath() == project)
            m_document->setModelRef(model);
        emit recordingFinished(true, tr("%1; opened %2").arg(summary, QFileInfo(project).fileName()));
    });
    connect(opener, &DocumentOpener::failed, once, [this, once, summary] {
        once->deleteLater();
        emit recordingFinished(true, summary);
    });
    if (!m_project->open(outcome.projectPath)) {
        delete once;
        emit recordingFinished(true, tr("%1 into %2 (not opened: File > Open Project… opens it)")
                                         .arg(summary, QDir::toNativeSeparators(outcome.projectPath)));
    }
}

} // namespace dimscope
