#pragma once

#include "models/loadedcapture.h"
#include "project/projectfile.h"

#include <optional>

#include <QMainWindow>

class QAction;
class QLabel;
class QMenu;
class QProgressBar;
class QUndoStack;

namespace dimscope {

class CaptureLoader;
class DimsPanel;
class ExportController;
class InputsDecorator;
class ProjectController;
class InputsView;
class LeafDetailsPanel;
class MessageBanner;
class PlotPanel;
class ProjectDocument;

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Opens a capture or a .dimscope project (loading and inference run off the GUI
    // thread; captureShown or openFailed follows). Returns false, with the reason in
    // the banner, when it cannot start.
    bool openFile(const QString &path);
    // Shows a capture built in memory (tests, generated captures), through the same
    // off-thread path as a file.
    void showCapture(const Capture &capture, const QString &label);

    LoadedCapturePtr loaded() const { return m_loaded; }
    QString currentFile() const { return m_currentFile; }
    InputsView *inputsView() const { return m_inputs; }
    LeafDetailsPanel *detailsPanel() const { return m_details; }
    PlotPanel *plotPanel() const { return m_plot; }
    DimsPanel *dimsPanel() const { return m_dims; }
    ProjectController *projectController() const { return m_project; }
    MessageBanner *banner() const { return m_banner; }
    QUndoStack *undoStack() const;
    // The open work (capture, constraints, undo history, project file).
    ProjectDocument *document() const { return m_document; }
    // Export from the menu: the worker, the Export and result docks (mainwindowexport.cpp).
    ExportController *exportController() const { return m_export; }
    QMenu *recentMenu() const { return m_recentMenu; }

    // Filled in by the export client once the worker has started.
    void setWorkerDescription(const QString &torchVersion, const QString &state);

signals:
    void captureShown(const QString &label);
    void openFailed(const QString &label, const QString &error);

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createActions();
    void createDocks();
    void createExportUi();
    void restoreSettings();
    void saveSettings() const;
    void rebuildRecentMenu();
    void openCaptureDialog();
    void openProjectDialog();
    void updateTitle();
    void showLeafContextMenu(const QString &path, int dim, const QPoint &globalPos);
    void showPreferences();
    void showAbout();
    void onLoaded(const QString &label, const LoadedCapturePtr &loaded);
    void onFailed(const QString &label, const QString &error);
    void onProgress(const QString &label, int done, int total);
    void showNode(int node);
    void updateStatus();

    ProjectDocument *m_document;
    ExportController *m_export = nullptr;
    CaptureLoader *m_loader;
    MessageBanner *m_banner;
    InputsView *m_inputs;
    LeafDetailsPanel *m_details;
    PlotPanel *m_plot;
    DimsPanel *m_dims;
    InputsDecorator *m_decorator;
    ProjectController *m_project;
    QMenu *m_recentMenu = nullptr;
    QLabel *m_statusSummary;
    QLabel *m_statusWorker;
    QProgressBar *m_progress;
    LoadedCapturePtr m_loaded;
    QString m_currentFile;
    QString m_label; // what was loaded when it was not a file (showCapture)
    QString m_pendingFile;
    QString m_pendingProjectPath;       // the .dimscope whose capture is loading
    std::optional<ProjectFile> m_pendingProject;
    QString m_workerTorch;
};

} // namespace dimscope
