#include "mainwindow.h"

#include "capture/capturereader.h"
#include "captureloader.h"
#include "dimcontextmenu.h"
#include "dimspanel.h"
#include "exportcontroller.h"
#include "inputsdecorator.h"
#include "export/pythonruntime.h"
#include "inputsview.h"
#include "leafdetailspanel.h"
#include "messagebanner.h"
#include "models/inputsmodel.h"
#include "plotpanel.h"
#include "preferencesdialog.h"
#include "projectcontroller.h"
#include "projectdocument.h"
#include "recentfiles.h"
#include "settingskeys.h"
#include "util/buildinfo.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QUndoStack>
#include <QVBoxLayout>

namespace dimscope {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_document(new ProjectDocument(this)), m_loader(new CaptureLoader(this)),
      m_banner(new MessageBanner), m_inputs(new InputsView), m_details(new LeafDetailsPanel),
      m_plot(new PlotPanel), m_dims(new DimsPanel(m_document)),
      m_decorator(new InputsDecorator(m_document, m_inputs->model(), this)),
      m_project(new ProjectController(m_document, m_banner, this)), m_statusSummary(new QLabel), m_statusWorker(new QLabel), m_progress(new QProgressBar)
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(QStringLiteral("dimscope"));
    setAcceptDrops(true);

    auto *centre = new QWidget(this);
    auto *layout = new QVBoxLayout(centre);
    layout->setContentsMargins(4, 4, 4, 0);
    layout->setSpacing(4);
    layout->addWidget(m_banner);
    layout->addWidget(m_inputs, 1);
    setCentralWidget(centre);

    m_statusSummary->setObjectName(QStringLiteral("statusSummary"));
    m_statusWorker->setObjectName(QStringLiteral("statusWorker"));
    m_progress->setMaximumWidth(200);
    m_progress->hide();
    statusBar()->addWidget(m_statusSummary, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_statusWorker);

    createDocks();
    createActions();
    createExportUi();

    connect(m_loader, &CaptureLoader::loaded, this, &MainWindow::onLoaded);
    connect(m_loader, &CaptureLoader::failed, this, &MainWindow::onFailed);
    connect(m_loader, &CaptureLoader::progress, this, &MainWindow::onProgress);
    connect(m_inputs, &InputsView::currentNodeChanged, this, &MainWindow::showNode);
    connect(m_inputs, &InputsView::leafContextMenuRequested, this, &MainWindow::showLeafContextMenu);
    m_plot->setDocument(m_document);
    connect(m_dims, &DimsPanel::dimSelected, this, [this](const QString &name) {
        m_decorator->setSelectedDim(name);
        if (!name.isEmpty())
            m_plot->showDim(name);
    });
    connect(m_document, &ProjectDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(m_document, &ProjectDocument::projectPathChanged, this, &MainWindow::updateTitle);
    connect(m_document, &ProjectDocument::captureChanged, this, &MainWindow::updateTitle);

    restoreSettings();
    updateStatus();
}

MainWindow::~MainWindow() = default;

QUndoStack *MainWindow::undoStack() const
{
    return m_document->undoStack();
}

void MainWindow::createDocks()
{
    auto *details = new QDockWidget(tr("Leaf details"), this);
    details->setObjectName(QStringLiteral("detailsDock"));
    details->setWidget(m_details);
    addDockWidget(Qt::BottomDockWidgetArea, details);
    auto *dims = new QDockWidget(tr("Dims"), this);
    dims->setObjectName(QStringLiteral("dimsDock"));
    dims->setWidget(m_dims);
    addDockWidget(Qt::RightDockWidgetArea, dims);
    resizeDocks({dims}, {430}, Qt::Horizontal);
    auto *plot = new QDockWidget(tr("Plot"), this);
    plot->setObjectName(QStringLiteral("plotDock"));
    plot->setWidget(m_plot);
    addDockWidget(Qt::BottomDockWidgetArea, plot);
    splitDockWidget(details, plot, Qt::Horizontal);
    resizeDocks({details, plot}, {3, 2}, Qt::Horizontal);
}

void MainWindow::createActions()
{
    // File
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open = file->addAction(QIcon::fromTheme(QStringLiteral("document-open")), tr("&Open Capture…"), this,
                                    &MainWindow::openCaptureDialog);
    open->setObjectName(QStringLiteral("actionOpenCapture"));
    open->setShortcut(QKeySequence::Open);
    file->setToolTipsVisible(true);
    QAction *openProject = file->addAction(tr("Open &Project…"), this, &MainWindow::openProjectDialog);
    openProject->setObjectName(QStringLiteral("actionOpenProject"));
    openProject->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    QAction *save = file->addAction(QIcon::fromTheme(QStringLiteral("document-save")), tr("&Save Project"), m_project,
                                    &ProjectController::save);
    save->setObjectName(QStringLiteral("actionSaveProject"));
    save->setShortcut(QKeySequence::Save);
    QAction *saveAs = file->addAction(tr("Save Project &As…"), m_project, &ProjectController::saveAs);
    saveAs->setObjectName(QStringLiteral("actionSaveProjectAs"));
    saveAs->setShortcut(QKeySequence::SaveAs);
    const auto enableSave = [this, save, saveAs] {
        save->setEnabled(m_document->hasCapture());
        saveAs->setEnabled(m_document->hasCapture());
    };
    connect(m_document, &ProjectDocument::captureChanged, this, enableSave);
    enableSave();
    m_recentMenu = file->addMenu(tr("&Recent Files"));
    m_recentMenu->setObjectName(QStringLiteral("recentMenu"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    rebuildRecentMenu();
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setObjectName(QStringLiteral("actionQuit"));
    quit->setShortcut(QKeySequence::Quit);

    // Edit
    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    QAction *undo = undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setObjectName(QStringLiteral("actionUndo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction *redo = undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setObjectName(QStringLiteral("actionRedo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    QAction *find = edit->addAction(tr("&Find…"), m_inputs, &InputsView::focusFilter);
    find->setObjectName(QStringLiteral("actionFind"));
    find->setShortcut(QKeySequence::Find);
    edit->addSeparator();
    QAction *prefs = edit->addAction(tr("&Preferences…"), this, &MainWindow::showPreferences);
    prefs->setObjectName(QStringLiteral("actionPreferences"));
    prefs->setShortcut(QKeySequence::Preferences);

    // View
    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("&Expand All"), m_inputs, &InputsView::expandAll);
    view->addAction(tr("&Collapse All"), m_inputs, &InputsView::collapseAll);
    view->addSeparator();
    for (QDockWidget *dock : findChildren<QDockWidget *>())
        view->addAction(dock->toggleViewAction());

    // Export: present so the menu is discoverable; enabled once the worker is wired.
    QMenu *exportMenu = menuBar()->addMenu(tr("E&xport"));
    exportMenu->setObjectName(QStringLiteral("exportMenu"));
    exportMenu->setToolTipsVisible(true);
    const QString exportReason = tr("Export needs the Python export worker, which is not connected in this build yet.");
    const QList<QPair<QString, QString>> exports = {
        {QStringLiteral("actionExportCpu"), tr("Export on &CPU")},
        {QStringLiteral("actionExportCuda"), tr("Export on C&UDA")},
        {QStringLiteral("actionCopyDynamicShapes"), tr("Copy dynamic_shapes as &Python")},
        {QStringLiteral("actionSaveConstraints"), tr("&Save Constraints as JSON…")},
        {QStringLiteral("actionExportOptions"), tr("Export &Options…")},
    };
    for (const auto &[name, text] : exports) {
        QAction *a = exportMenu->addAction(text);
        a->setObjectName(name);
        a->setEnabled(false);
        a->setToolTip(exportReason);
    }
    // The document-only ones work without the worker.
    auto *copyShapes = exportMenu->findChild<QAction *>(QStringLiteral("actionCopyDynamicShapes"));
    auto *saveJson = exportMenu->findChild<QAction *>(QStringLiteral("actionSaveConstraints"));
    auto *options = exportMenu->findChild<QAction *>(QStringLiteral("actionExportOptions"));
    connect(copyShapes, &QAction::triggered, m_project, &ProjectController::copyDynamicShapes);
    connect(saveJson, &QAction::triggered, m_project, [this] { m_project->saveConstraintsJson(); });
    connect(options, &QAction::triggered, m_project, &ProjectController::editExportOptions);
    copyShapes->setToolTip(tr("The dynamic_shapes of the current constraints as a Python snippet"));
    saveJson->setToolTip(tr("The constraint set as a dimscope.constraints JSON document"));
    options->setToolTip(tr("Example call and strict mode used by the export"));
    const auto enableDocumentExports = [this, copyShapes, saveJson, options] {
        for (QAction *a : {copyShapes, saveJson, options})
            a->setEnabled(m_document->hasCapture());
    };
    connect(m_document, &ProjectDocument::captureChanged, this, enableDocumentExports);
    enableDocumentExports();

    // Help
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *about = help->addAction(tr("&About dimscope"), this, &MainWindow::showAbout);
    about->setObjectName(QStringLiteral("actionAbout"));
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    if (!restoreGeometry(settings.value(settings::Geometry).toByteArray()))
        resize(1280, 800);
    restoreState(settings.value(settings::WindowState).toByteArray(), settings::WindowStateVersion);
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.setValue(settings::Geometry, saveGeometry());
    settings.setValue(settings::WindowState, saveState(settings::WindowStateVersion));
}

void MainWindow::rebuildRecentMenu()
{
    QSettings settings;
    const QStringList files = RecentFiles(settings).files();
    m_recentMenu->clear();
    for (int i = 0; i < files.size(); ++i) {
        const QString path = files.at(i);
        QAction *a = m_recentMenu->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()));
        a->setToolTip(path);
        a->setData(path);
        connect(a, &QAction::triggered, this, [this, path] { openFile(path); });
    }
    if (files.isEmpty()) {
        m_recentMenu->addAction(tr("No recent files"))->setEnabled(false);
        return;
    }
    m_recentMenu->setToolTipsVisible(true);
    m_recentMenu->addSeparator();
    m_recentMenu->addAction(tr("&Clear List"), this, [this] {
        QSettings s;
        RecentFiles(s).clear();
        rebuildRecentMenu();
    });
}

void MainWindow::openCaptureDialog()
{
    QSettings settings;
    const QString folder = settings.value(settings::LastCaptureFolder).toString();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Capture"), folder,
                                                      tr("Captures (*.safetensors);;All files (*)"));
    if (path.isEmpty())
        return;
    settings.setValue(settings::LastCaptureFolder, QFileInfo(path).absolutePath());
    openFile(path);
}

void MainWindow::openProjectDialog()
{
    QSettings settings;
    const QString folder = settings.value(settings::LastProjectFolder).toString();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Project"), folder,
                                                      tr("dimscope projects (*.dimscope);;All files (*)"));
    if (path.isEmpty())
        return;
    settings.setValue(settings::LastProjectFolder, QFileInfo(path).absolutePath());
    openFile(path);
}

bool MainWindow::openFile(const QString &path)
{
    const QFileInfo info(path);
    if (!info.isFile()) {
        onFailed(path, tr("no such file"));
        return false;
    }
    const QString suffix = info.suffix().toLower();
    if (suffix == QLatin1String("pt2")) {
        // An exported program: its interface in the result view, no capture needed.
        QString error;
        if (!m_export->openPt2(info.absoluteFilePath(), &error)) {
            onFailed(path, error);
            return false;
        }
        QSettings settings;
        RecentFiles(settings).add(info.absoluteFilePath());
        m_banner->hide();
        return true;
    }
    if (!m_project->maybeSave())
        return false;
    m_pendingProject.reset();
    m_pendingProjectPath.clear();
    QString capturePath = path;
    if (suffix == QLatin1String("dimscope")) {
        QString error;
        std::optional<ProjectFile> project = ProjectFile::read(path, &error);
        if (!project) {
            onFailed(path, error);
            return false;
        }
        capturePath = project->capturePath;
        if (!QFileInfo(capturePath).isFile()) {
            onFailed(path, tr("its capture %1 does not exist").arg(QDir::toNativeSeparators(capturePath)));
            return false;
        }
        m_pendingProject = std::move(project);
        m_pendingProjectPath = info.absoluteFilePath();
    }
    m_pendingFile = QFileInfo(capturePath).absoluteFilePath();
    m_loader->start(path, [path = capturePath](QString *error) {
        std::optional<Capture> capture = CaptureReader::open(path, error);
        if (!capture && error->isEmpty())
            *error = tr("not a readable capture");
        return capture ? *capture : Capture();
    });
    return true;
}

void MainWindow::showCapture(const Capture &capture, const QString &label)
{
    m_pendingFile.clear();
    m_loader->start(label, [capture](QString *) { return capture; });
}

void MainWindow::onProgress(const QString &label, int done, int total)
{
    m_progress->setVisible(true);
    m_progress->setRange(0, total); // 0/0: busy indicator while the file is read
    m_progress->setValue(done);
    m_statusSummary->setText(tr("Loading %1…").arg(QFileInfo(label).fileName()));
}

void MainWindow::onLoaded(const QString &label, const LoadedCapturePtr &loaded)
{
    m_progress->hide();
    m_loaded = loaded;
    // The document first (the tree's decorations and the plot's band read it), then
    // the panels: the tree selects its first dynamic leaf and they must show it.
    m_inputs->model()->clear();
    const QString capturePath = m_pendingFile.isEmpty() ? label : m_pendingFile;
    if (m_pendingProject)
        m_document->openProject(m_pendingProjectPath, *m_pendingProject, loaded->capture, loaded->inference);
    else
        m_document->setCapture(capturePath, loaded->capture, loaded->inference);
    m_details->setLoaded(loaded);
    m_plot->setLoaded(loaded);
    m_inputs->setLoaded(loaded);
    m_decorator->refresh();
    m_plot->showNode(m_inputs->currentNode());
    m_currentFile = m_pendingFile;
    m_pendingFile.clear();
    const QString recent = m_pendingProject ? m_pendingProjectPath : m_currentFile;
    m_pendingProject.reset();
    m_pendingProjectPath.clear();
    m_label = label;
    if (!recent.isEmpty()) {
        QSettings settings;
        RecentFiles(settings).add(recent);
    }
    updateTitle();
    m_banner->hide();
    updateStatus();
    emit captureShown(label);
}

void MainWindow::updateTitle()
{
    const QString shown = !m_document->projectPath().isEmpty() ? m_document->projectPath()
                          : !m_currentFile.isEmpty()           ? m_currentFile
                                                               : m_label;
    if (shown.isEmpty()) {
        setWindowTitle(QStringLiteral("dimscope"));
        return;
    }
    setWindowFilePath(shown);
    // "[*]" is where Qt draws the modified marker.
    setWindowTitle(QStringLiteral("%1[*] — dimscope").arg(QFileInfo(shown).fileName()));
    setWindowModified(m_document->isModified());
}

void MainWindow::showLeafContextMenu(const QString &path, int dim, const QPoint &globalPos)
{
    if (!m_document->hasCapture())
        return;
    QMenu menu(this);
    menu.setObjectName(QStringLiteral("dimContextMenu"));
    DimContextMenu::populate(&menu, m_document, path, dim, this, [this](const QString &error) {
        if (!error.isEmpty())
            m_banner->showMessage(MessageBanner::Kind::Error, error);
    });
    menu.exec(globalPos);
}

void MainWindow::onFailed(const QString &label, const QString &error)
{
    m_progress->hide();
    m_pendingFile.clear();
    m_pendingProject.reset();
    m_pendingProjectPath.clear();
    updateStatus();
    m_banner->showMessage(MessageBanner::Kind::Error, tr("Cannot open %1: %2").arg(label, error));
    emit openFailed(label, error);
}

void MainWindow::showNode(int node)
{
    m_details->showNode(node);
    m_plot->showNode(node);
}

void MainWindow::updateStatus()
{
    if (!m_loaded) {
        m_statusSummary->setText(tr("Open a capture (Ctrl+O) or drop one here."));
    } else {
        int dynamicLeaves = 0;
        for (const ShapeSummary &s : m_loaded->shapes)
            dynamicLeaves += s.hasDynamicDim() ? 1 : 0;
        m_statusSummary->setText(tr("%1 calls, %2 leaves, %3 with dynamic dims%4")
                                     .arg(m_loaded->tree.callCount())
                                     .arg(m_loaded->tree.leafCount())
                                     .arg(dynamicLeaves)
                                     .arg(m_loaded->capture.modelClass.isEmpty()
                                              ? QString()
                                              : QStringLiteral(" — ") + m_loaded->capture.modelClass));
    }
    // Discovery only looks at files, so it is cheap enough for every status update.
    const QString chosen = QSettings().value(settings::PythonInterpreter).toString();
    const PythonRuntime runtime = chosen.isEmpty() ? PythonRuntime::discover() : PythonRuntime::fromInterpreter(chosen);
    const QString python = runtime.isValid() ? runtime.sourceName() : tr("none found");
    m_statusWorker->setText(tr("Python: %1 · worker: %2").arg(python, m_workerTorch.isEmpty() ? tr("not started") : m_workerTorch));
    m_statusWorker->setToolTip(runtime.isValid() ? runtime.commandLine() : tr("Set one in Edit > Preferences or DIMSCOPE_PYTHON."));
}

void MainWindow::setWorkerDescription(const QString &torchVersion, const QString &state)
{
    m_workerTorch = state.isEmpty()          ? torchVersion
                    : torchVersion.isEmpty() ? state
                                             : QStringLiteral("%1, torch %2").arg(state, torchVersion);
    updateStatus();
}

void MainWindow::showPreferences()
{
    PreferencesDialog dialog(this);
    dialog.load();
    // What the worker detected; asked for now when it has not started yet.
    dialog.setEnvironmentDescription(m_export->environmentDescription());
    connect(m_export, &ExportController::environmentChanged, &dialog,
            [this, &dialog] { dialog.setEnvironmentDescription(m_export->environmentDescription()); });
    m_export->ensureWorker();
    if (dialog.exec() == QDialog::Accepted) {
        dialog.store();
        m_export->reloadRuntime();
        updateStatus();
    }
}

void MainWindow::showAbout()
{
    QString text = tr("<h3>dimscope %1</h3>"
                      "<p>See and shape the <code>dynamic_shapes</code> of a PyTorch model for "
                      "<code>torch.export</code>.</p>"
                      "<p>Qt %2 · LibTorch %3 · worker torch: %4</p>"
                      "<p>GPL-3.0-or-later. Plots by QCustomPlot (GPLv3).</p>")
                       .arg(BuildInfo::dimscopeVersion(), BuildInfo::qtVersion(), BuildInfo::libtorchVersion(),
                            m_export->torchVersion().isEmpty() ? tr("not known yet (the worker has not started)")
                                                               : m_export->torchVersion().toHtmlEscaped());
    QMessageBox::about(this, tr("About dimscope"), text);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!m_project->maybeSave()) {
        event->ignore();
        return;
    }
    m_loader->cancel();
    saveSettings();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile())
        return;
    event->acceptProposedAction();
    openFile(urls.first().toLocalFile());
}

} // namespace dimscope
