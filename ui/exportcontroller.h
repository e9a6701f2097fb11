#pragma once

#include "export/exportresult.h"
#include "export/phasedexportoutcome.h"
#include "pt2/pt2dimmapper.h"
#include "pt2/pt2program.h"
#include "capture/capture.h"
#include "shapes/constraintset.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>

#include <optional>

class QAction;
class QWidget;

namespace dimscope {

class ExportClient;
class PhasedExport;
class ExportPanel;
class ExportResultView;
class ProjectDocument;

// Export from the menu: owns the ExportClient (the Python worker, started lazily and
// kept warm), the Export on CPU / CUDA actions, the Export panel (progress, log,
// Cancel) and the result view. Builds each export from the document: its capture,
// model reference (asked for with Open Model… when missing), the current constraints
// and the export options, and runs it through core's PhasedExport (the pipeline the
// CLI's --fix-loop runs: fixes applied to a copy, a program per phase when one cannot
// serve every call). Everything runs asynchronously: the GUI thread only sends lines
// to the worker and reads its answers.
class ExportController : public QObject
{
    Q_OBJECT
public:
    enum class WorkerState { NotStarted, Starting, Idle, Exporting, Crashed };
    Q_ENUM(WorkerState)

    // `window` parents the dialogs (Open Model…, Save As).
    ExportController(ProjectDocument *document, QWidget *window, QObject *parent = nullptr);
    ~ExportController() override;

    ExportClient *client() const { return m_client; }
    ExportPanel *panel() const { return m_panel; }
    ExportResultView *resultView() const { return m_result; }

    QAction *exportCpuAction() const { return m_cpu; }
    QAction *exportCudaAction() const { return m_cuda; }
    QAction *openModelAction() const { return m_openModel; }
    QAction *outputFileAction() const { return m_outputFile; }
    QAction *cancelAction() const { return m_cancel; }

    WorkerState state() const { return m_state; }
    static QString stateName(WorkerState state);
    // The worker's hello answer (empty until it came): python, torch, transformers, cuda.
    QJsonObject environment() const { return m_environment; }
    QString torchVersion() const;
    bool cudaAvailable() const;
    // Several lines for Preferences: interpreter, versions, CUDA devices.
    QString environmentDescription() const;

    // Re-reads the interpreter from the settings (after Preferences); a changed one
    // restarts the worker on the next request.
    void reloadRuntime();
    // Starts the worker and asks it hello, unless it runs or is starting.
    void ensureWorker();

    // Where the next export writes: the chosen file, else <project or capture>.pt2.
    QString outputPath() const;
    void setOutputPath(const QString &path) { m_outputPath = path; }

    // Starts an export on `device` ("cpu", "cuda"). Returns false, with the reason
    // shown in the result view, when it cannot start (no capture, no model, busy).
    bool startExport(const QString &device);
    void cancel();
    // Applies the last failure's suggested fixes to the document's constraints as one
    // undo step. Returns the lines it could not apply ("line: reason").
    QStringList applyFixes();
    bool reexport();
    // Opens a .pt2 in the result view (no capture needed).
    bool openPt2(const QString &path, QString *error);
    // File > Open Model…: the dialog; a reference sets the document's model, a .pt2
    // is shown. Returns false when cancelled.
    bool openModelDialog();

    // The shown program's export round, or the first attempt's when none exported.
    ExportResult lastResult() const { return m_lastResult; }
    // Everything the last export produced: its programs and the calls none serves.
    const PhasedExportOutcome &lastOutcome() const { return m_lastOutcome; }
    bool isExporting() const;
    std::optional<Pt2Program> lastProgram() const { return m_lastProgram; }
    std::optional<Pt2DimMapping> lastMapping() const { return m_lastMapping; }
    QString lastError() const { return m_lastError; }

signals:
    void stateChanged(dimscope::ExportController::WorkerState state);
    void environmentChanged();
    void exportStarted(const QString &device, const QString &output);
    void exportDone(const dimscope::ExportResult &result);
    void fixesApplied(const QStringList &applied, const QStringList &unapplied);
    void pt2Opened(const QString &path);
    // A short message for the window's banner or status bar.
    void message(const QString &text);

private:
    void setState(WorkerState state);
    void updateActions();
    void onHello(const QJsonObject &result);
    void connectPipeline();
    void onPipelineFinished(const PhasedExportOutcome &outcome);
    void fail(const QString &message);
    bool chooseOutputFile();
    QString defaultOutputPath() const;

    QPointer<ProjectDocument> m_document;
    QPointer<QWidget> m_window;
    ExportClient *m_client;
    PhasedExport *m_pipeline;
    ExportPanel *m_panel;
    ExportResultView *m_result;
    QAction *m_cpu;
    QAction *m_cuda;
    QAction *m_openModel;
    QAction *m_outputFile;
    QAction *m_cancel;

    WorkerState m_state = WorkerState::NotStarted;
    QString m_stateDetail; // why it crashed / did not start
    QJsonObject m_environment;
    int m_helloId = -1;
    QString m_lastDevice = QStringLiteral("cpu");
    QString m_outputPath;
    bool m_cancelling = false;

    // What the running export was built from: the mapping of the result uses these,
    // not the constraints edited meanwhile.
    ConstraintSet m_exportConstraints;
    Capture m_exportCapture;
    ExportResult m_lastResult;
    PhasedExportOutcome m_lastOutcome;
    std::optional<Pt2Program> m_lastProgram;
    std::optional<Pt2DimMapping> m_lastMapping;
    QString m_lastError;
};

} // namespace dimscope
