// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/loadedcapture.h"

#include <QMainWindow>
#include <QPointer>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QStackedWidget;
class QTabWidget;
class QUndoStack;

namespace dimscope {

class Capture;
class AotiController;
class DimsPanel;
class ElidedLabel;
class ExplanationsPanel;
class CompareController;
class ExportController;
class ExportPanel;
class ExportResultView;
class ProjectController;
class RecordingController;
class SpecTab;
class InputsView;
class LeafDetailsPanel;
class MessageBanner;
class PlotPanel;
class ProjectDocument;
class WelcomePage;

// The window: docks, menus and the status bar around the document. The document owns
// the opened work (capture, constraints, undo), the project controller opens and
// saves it, the export controller exports it; the panels follow the document.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    // Opens a capture, a .dimscope project or a .pt2 through the DocumentOpener
    // (loading and inference, or the program's read-back, run off the GUI thread;
    // captureShown for a capture, the opener's opened for any, or openFailed follows).
    // Returns false, with the reason in the banner, when it cannot start.
    bool openFile(const QString &path);
    // dimscope --export=DEVICE FILE: exports on `device` once the next file opened is
    // shown (the user asked for it by name: a project's model runs without asking).
    void exportOnceShown(const QString &device);
    // Shows a capture built in memory (tests, generated captures), through the same
    // off-thread path as a file.
    void showCapture(const Capture &capture, const QString &label);

    LoadedCapturePtr loaded() const;
    QString currentFile() const;
    InputsView *inputsView() const { return m_inputs; }
    LeafDetailsPanel *detailsPanel() const { return m_details; }
    PlotPanel *plotPanel() const { return m_plot; }
    DimsPanel *dimsPanel() const { return m_dims; }
    ExplanationsPanel *explanationsPanel() const { return m_explanations; }
    ProjectController *projectController() const { return m_project; }
    // File > New Recording… and Record More Calls… (mainwindowrecord.cpp).
    RecordingController *recordingController() const { return m_recording; }
    MessageBanner *banner() const { return m_banner; }
    QUndoStack *undoStack() const;
    // The open work (capture, constraints, undo history, project file).
    ProjectDocument *document() const { return m_document; }
    // Export from the menu: the worker, the actions and dialogs (mainwindowexport.cpp).
    ExportController *exportController() const { return m_export; }
    // The Export dock's panel and the Exported Program tab: the document's ExportResults.
    ExportPanel *exportPanel() const { return m_exportPanel; }
    ExportResultView *exportResultView() const { return m_resultView; }
    QMenu *recentMenu() const { return m_recentMenu; }
    // The main area: the welcome page while nothing is open, else the document's tabs.
    WelcomePage *welcomePage() const { return m_welcome; }
    QTabWidget *documentTabs() const { return m_tabs; }
    enum DocumentTab { InputsTab = 0, ProgramTab = 1, SpecScriptTab = 2 };
    SpecTab *specTab() const { return m_specTab; }
    // View > Reset Layout: every dock back where a first start puts it.
    void resetLayout();

    // Filled in by the export client once the worker has started.
    void setWorkerDescription(const QString &torchVersion, const QString &state);

signals:
    void captureShown(const QString &label);
    void openFailed(const QString &label, const QString &error);

protected:
    void closeEvent(QCloseEvent *event) override;
    void moveEvent(QMoveEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    // mainwindow.cpp
    void createDocks();
    void connectOpening();
    void restoreSettings();
    void fitToScreen();
    void saveSettings();
    void updateTitle();
    void updateStatus();
    void showNode(int node);
    void showLeafContextMenu(const QString &path, int dim, const QPoint &globalPos);
    void showPreferences();
    void showAbout();
    void showDocumentation();
    void showShortcuts();
    void showOpenFailure(const QString &path, const QString &error);
    void offerToLocateCapture(const QString &projectPath, const QString &capturePath);
    // mainwindowmenus.cpp
    void createMenus();
    void createFileMenu();
    void createEditMenu();
    void createViewMenu();
    void createExportMenu();
    void rebuildRecentMenu();
    void openCaptureDialog();
    void openProjectDialog();
    // mainwindowexport.cpp
    void createExportDocks();
    void createExplanationsDock();
    void noticeCudaProject();
    void connectResultView();
    // mainwindowrecord.cpp
    void createRecording();
    // mainwindowview.cpp
    void createCentre(QWidget *banner);
    void updateCentre();
    void setWelcomeMode(bool welcome);
    void createToolBar();
    void arrangeDocks();
    void applyDefaultDockSizes();
    int defaultDimsWidth() const;
    void giveWhyItsShare();
    void createFocusActions(QMenu *view);
    void focusPanel(QWidget *panel);
    void releaseTabFromViews();

    ProjectDocument *m_document;
    ProjectController *m_project;
    ExportController *m_export;
    AotiController *m_aoti = nullptr; // Export > Compile with AOTInductor…
    RecordingController *m_recording = nullptr;
    CompareController *m_compare = nullptr; // Compare Exports… / Compare Captures…
    MessageBanner *m_banner;
    InputsView *m_inputs;
    LeafDetailsPanel *m_details;
    PlotPanel *m_plot;
    DimsPanel *m_dims;
    ExplanationsPanel *m_explanations = nullptr;
    ExportPanel *m_exportPanel = nullptr;
    ExportResultView *m_resultView = nullptr;
    QMenu *m_recentMenu = nullptr;
    WelcomePage *m_welcome = nullptr;
    QStackedWidget *m_centre = nullptr;
    QTabWidget *m_tabs = nullptr;
    SpecTab *m_specTab = nullptr;
    bool m_cudaNoticePending = false;
    bool m_welcomeMode = false;
    bool m_fitOnceFramed = true; // fitToScreen() again once the window manager's frame is known
    bool m_defaultDockSizesPending = false; // no saved layout: size the docks when first shown
    QList<QPointer<QDockWidget>> m_docksHiddenForWelcome;
    ElidedLabel *m_statusSummary;
    ElidedLabel *m_statusWorker;
    QProgressBar *m_progress;
    QString m_workerTorch;
};

} // namespace dimscope
