// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/exportservice.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>

class QAction;
class QWidget;

class QUndoCommand;

namespace dimscope {

class ExportClient;
class ExportProgress;
class ProjectDocument;

// Export from the menu, the widget side of core's ExportService (the worker, the
// PhasedExport pipeline the CLI's --fix-loop runs, the read-back): the Export on
// CPU / CUDA actions, Cancel, Apply fixes and Re-export, and the dialogs (Open Model…,
// output file, the project model's consent). Builds each export from the document:
// its capture, model reference, current constraints and export options
// (ExportRequest::make, as the CLI does). What an export produced is not kept here:
// the document's ExportResults follow the export and own its outcome.
class ExportController : public QObject
{
    Q_OBJECT
public:
    using WorkerState = ExportService::WorkerState;

    // `window` parents the dialogs (Open Model…, Save As).
    ExportController(ProjectDocument *document, QWidget *window, QObject *parent = nullptr);
    ~ExportController() override;

    ExportService *service() const { return m_service; }
    ExportClient *client() const { return m_service->client(); }
    // Where the running export is (phase, round, step), for the Export dock and the
    // status bar; idle between exports.
    ExportProgress *progress() const { return m_progress; }

    QAction *exportCpuAction() const { return m_cpu; }
    QAction *exportCudaAction() const { return m_cuda; }
    QAction *openModelAction() const { return m_openModel; }
    QAction *outputFileAction() const { return m_outputFile; }
    QAction *cancelAction() const { return m_cancel; }
    // Export > Verify With Another Capture… / Stop Verifying With the Held-Out Capture.
    QAction *verifyWithAction() const { return m_verifyWith; }
    QAction *stopVerifyingWithAction() const { return m_stopVerifyingWith; }

    WorkerState state() const { return m_service->state(); }
    static QString stateName(WorkerState state) { return ExportService::stateName(state); }
    QJsonObject environment() const { return m_service->environment(); }
    QString torchVersion() const { return m_service->torchVersion(); }
    bool cudaAvailable() const { return m_service->cudaAvailable(); }
    // Why an export on CUDA cannot run here, in a sentence (the worker has not reported
    // yet, is not running, its torch sees no device or has no CUDA); empty when it can.
    QString cudaUnavailableReason() const;
    QString environmentDescription() const { return m_service->environmentDescription(); }

    // Re-reads the interpreter from the settings (after Preferences); a changed one
    // restarts the worker on the next request.
    void reloadRuntime();
    // Starts the worker and asks it hello, unless it runs or is starting.
    void ensureWorker() { m_service->ensureWorker(); }

    // Where the next export writes: the chosen file, else <project or capture>.pt2.
    QString outputPath() const;
    void setOutputPath(const QString &path) { m_outputPath = path; }

    // Starts an export on `device` ("cpu", "cuda"). Returns false, with the reason in
    // lastError() and exportRefused, when it cannot start (no capture, no model, busy).
    // `consent`: Given when the user asked for this export by name (dimscope
    // --export=cpu PROJECT): a project's model then runs without the question.
    enum class Consent { Ask, Given };
    bool startExport(const QString &device, Consent consent = Consent::Ask);
    void cancel();
    // Applies `fixes`, those of the last failure's suggested fixes the user ticked, to
    // the document's constraints as one undo step. Returns the lines it could not apply
    // ("line: reason"). fixesUndone follows that step through undo and redo.
    QStringList applyFixes(const QStringList &fixes);
    bool reexport();
    // The failure page's "Use Call N and Re-export": the document's export options
    // take call N as the example (one change, saved with the project), then export.
    bool reexportWithExampleCall(int call);
    // A partial result's remedy: the fix loop on (a program per phase; saved with the
    // project, shown in Export Options) and Re-export.
    bool reexportWithPhases();
    // Verify With Another Capture…: `capture` (a second recording of the model) becomes
    // the document's held-out capture (saved with the project) and the document is
    // exported again; every export then replays its calls through the programs in the
    // fresh interpreter that checks them, as `dimscope-cli export --verify-with` does.
    // Refused, with the reason, when its calls do not fit the captured calls'
    // structure (HeldOutStructure) or it cannot be read.
    bool exportVerifyingWith(const QString &capture);
    bool chooseHeldOutCapture();
    void forgetHeldOutCapture();
    // File > Open Model…: the dialog; a reference sets the document's model, a .pt2
    // is shown. Returns false when cancelled.
    bool openModelDialog();

    bool isExporting() const { return m_service->isExporting(); }
    // Why the last startExport() did not start; empty when it started.
    QString lastError() const { return m_lastError; }

signals:
    void stateChanged(dimscope::ExportService::WorkerState state);
    void environmentChanged();
    // Before the worker is asked: what is exported, on what, to where.
    void exportStarted(const QString &what);
    void exportRefused(const QString &why);
    void fixesApplied(const QStringList &applied, const QStringList &unapplied);
    // The step applyFixes() pushed was undone (true) or redone (false).
    void fixesUndone(bool undone);
    // Open Model… chose a .pt2: a document of its own, for the window to open.
    void pt2Requested(const QString &path);
    // A short message for the window's banner or status bar.
    void message(const QString &text);

private:
    void createActions();
    void connectService();
    void updateActions();
    void resetForNewDocument();
    bool mayRunModel(Consent consent);
    void fail(const QString &message);
    bool chooseOutputFile();
    void followFixesStep();
    QString defaultOutputPath() const;
    // Why the held-out capture at `path` cannot be replayed; empty when it can.
    QString heldOutMismatch(const QString &path) const;

    QPointer<ProjectDocument> m_document;
    QPointer<QWidget> m_window;
    ExportService *m_service;
    ExportProgress *m_progress;
    QAction *m_cpu;
    QAction *m_cuda;
    QAction *m_openModel;
    QAction *m_outputFile;
    QAction *m_cancel;
    QAction *m_verifyWith;
    QAction *m_stopVerifyingWith;

    QString m_lastDevice = QStringLiteral("cpu");
    // The undo step of the last Apply fixes, followed for fixesUndone.
    const QUndoCommand *m_fixesCommand = nullptr;
    int m_fixesIndex = -1; // the stack's index with the step done
    QPointer<QObject> m_fixesFollower;
    QString m_outputPath;
    QString m_lastError;
};

} // namespace dimscope
