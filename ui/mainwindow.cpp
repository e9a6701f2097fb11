// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"

#include "appfiles.h"
#include "dimcontextmenu.h"
#include "documentationdialog.h"
#include "dimspanel.h"
#include "elidedlabel.h"
#include "document/documentopener.h"
#include "exportcontroller.h"
#include "document/exportresults.h"
#include "export/exportclient.h"
#include "export/pythonruntime.h"
#include "inputsview.h"
#include "leafdetailspanel.h"
#include "messagebanner.h"
#include "text/openfailuretext.h"
#include "plotpanel.h"
#include "preferencesdialog.h"
#include "projectcontroller.h"
#include "document/projectdocument.h"
#include "settings/settingskeys.h"
#include "shortcutsdialog.h"
#include "util/buildinfo.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLayout>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QUndoStack>

#include <algorithm>

namespace dimscope {

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_document(new ProjectDocument(this)), m_banner(new MessageBanner),
      m_inputs(new InputsView), m_details(new LeafDetailsPanel), m_plot(new PlotPanel), m_dims(new DimsPanel(m_document)),
      m_statusSummary(new ElidedLabel(Qt::ElideMiddle)), m_statusWorker(new ElidedLabel(Qt::ElideMiddle)), m_progress(new QProgressBar)
{
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(QStringLiteral("dimscope"));
    setAcceptDrops(true);
    m_project = new ProjectController(m_document, m_banner, this);
    m_export = new ExportController(m_document, this, this);

    m_statusSummary->setObjectName(QStringLiteral("statusSummary"));
    m_statusWorker->setObjectName(QStringLiteral("statusWorker"));
    m_progress->setMaximumWidth(200);
    m_progress->hide();
    statusBar()->addWidget(m_statusSummary, 1);
    statusBar()->addPermanentWidget(m_progress);
    statusBar()->addPermanentWidget(m_statusWorker);

    // The panels follow the document. Details and plot subscribe before the tree: the
    // tree selects its first dynamic leaf when a capture is shown, and they must
    // already hold that capture to show it.
    m_details->setDocument(m_document);
    m_plot->setDocument(m_document);
    m_inputs->setDocument(m_document);

    createDocks();
    createExportDocks();
    createCentre(m_banner);
    createRecording();
    createMenus();
    createToolBar();
    arrangeDocks();
    connectOpening();

    connect(m_inputs, &InputsView::currentNodeChanged, this, &MainWindow::showNode);
    connect(m_inputs, &InputsView::leafContextMenuRequested, this, &MainWindow::showLeafContextMenu);
    connect(m_dims, &DimsPanel::dimSelected, this, [this](const QString &name) {
        m_inputs->setSelectedDim(name);
        if (!name.isEmpty())
            m_plot->showDim(name);
    });
    connect(m_document, &ProjectDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(m_document, &ProjectDocument::projectPathChanged, this, &MainWindow::updateTitle);
    connect(m_document, &ProjectDocument::captureChanged, this, [this] {
        updateTitle();
        updateStatus();
    });
    // Nothing is edited while a capture is being opened into the document.
    connect(m_document, &ProjectDocument::loadingChanged, m_dims, [this](bool loading) { m_dims->setEnabled(!loading); });

    restoreSettings();
    updateCentre(); // the welcome page hides the docks the saved layout showed
    fitToScreen(); // with the minimum size of what shows now
    releaseTabFromViews();
    updateStatus();
}

MainWindow::~MainWindow() = default;

QUndoStack *MainWindow::undoStack() const { return m_document->undoStack(); }

LoadedCapturePtr MainWindow::loaded() const { return m_document->loaded(); }

QString MainWindow::currentFile() const { return m_document->capturePath(); }

void MainWindow::createDocks()
{
    // Placed by arrangeDocks(); each keeps a width that shows its title.
    auto *details = new QDockWidget(tr("Leaf details"), this);
    details->setObjectName(QStringLiteral("detailsDock"));
    details->setWidget(m_details);
    details->setMinimumWidth(220);
    auto *dims = new QDockWidget(tr("Dims"), this);
    dims->setObjectName(QStringLiteral("dimsDock"));
    dims->setWidget(m_dims);
    dims->setMinimumWidth(260);
    // Dims that do not fit (a new capture's, a longer name) widen their dock as far as
    // defaultDimsWidth() allows; nothing narrows it.
    // Deferred: the table lays its new rows out first.
    connect(m_dims, &DimsPanel::wantsWidth, this, [this, dims] {
        QTimer::singleShot(0, this, [this, dims] {
            if (dims->isVisible() && !dims->isFloating() && dims->width() < defaultDimsWidth())
                resizeDocks({dims}, {defaultDimsWidth()}, Qt::Horizontal);
        });
    });
    auto *plot = new QDockWidget(tr("Plot"), this);
    plot->setObjectName(QStringLiteral("plotDock"));
    plot->setWidget(m_plot);
    plot->setMinimumWidth(220);
}

// The opener's progress in the status bar; its end in the banner and the signals.
void MainWindow::connectOpening()
{
    DocumentOpener *opener = m_project->opener();
    connect(opener, &DocumentOpener::progress, this, [this](const QString &label, int done, int total) {
        m_progress->setVisible(true);
        m_progress->setRange(0, total); // 0/0: busy indicator while the file is read
        m_progress->setValue(done);
        m_statusSummary->setFullText(tr("Loading %1…").arg(QFileInfo(label).fileName()));
    });
    connect(opener, &DocumentOpener::opened, this, [this](const QString &label) {
        m_progress->hide();
        m_banner->hide();
        updateStatus();
        noticeCudaProject();
        if (m_document->hasCapture()) // not a .pt2 opened on its own
            emit captureShown(label);
    });
    connect(opener, &DocumentOpener::failed, this, [this](const QString &label, const QString &error) {
        m_progress->hide();
        updateStatus();
        showOpenFailure(label, error);
        emit openFailed(label, error);
    });
    connect(opener, &DocumentOpener::captureMissing, this, &MainWindow::offerToLocateCapture);
    // Open Model… chose an exported program: a document of its own.
    connect(m_export, &ExportController::pt2Requested, this, &MainWindow::openFile);
}

void MainWindow::showOpenFailure(const QString &path, const QString &error)
{
    m_banner->showMessage(MessageBanner::Kind::Error, openFailureText(path, error));
    m_banner->setToolTip(QDir::toNativeSeparators(path));
}

// A project whose capture was moved or renamed: the banner offers to find it.
void MainWindow::offerToLocateCapture(const QString &projectPath, const QString &capturePath)
{
    const QString text = tr("%1 cannot be opened: its capture %2 is not there. Was it moved?")
                             .arg(QFileInfo(projectPath).fileName(), QDir::toNativeSeparators(capturePath));
    m_banner->showMessage(MessageBanner::Kind::Error, text, tr("Locate…"), [this, projectPath, capturePath] {
        QString folder = QFileInfo(capturePath).absolutePath();
        if (!QFileInfo(folder).isDir())
            folder = QFileInfo(projectPath).absolutePath();
        const QString found = QFileDialog::getOpenFileName(this, tr("Locate the Capture of %1").arg(QFileInfo(projectPath).fileName()),
                                                           folder, tr("Captures (*.safetensors);;All files (*)"));
        if (!found.isEmpty())
            m_project->opener()->openProject(projectPath, found);
    });
}

bool MainWindow::openFile(const QString &path) { return m_project->open(path); }

void MainWindow::exportOnceShown(const QString &device)
{
    auto *once = new QObject(this);
    connect(this, &MainWindow::captureShown, once, [this, once, device] {
        once->deleteLater();
        m_export->startExport(device, ExportController::Consent::Given);
    });
    connect(this, &MainWindow::openFailed, once, &QObject::deleteLater);
}

void MainWindow::showCapture(const Capture &capture, const QString &label)
{
    m_project->opener()->openCapture(capture, label);
}

void MainWindow::restoreSettings()
{
    QSettings settings;
    if (!restoreGeometry(settings.value(settings::Geometry).toByteArray()))
        resize(1280, 800);
    m_defaultDockSizesPending =
        !restoreState(settings.value(settings::WindowState).toByteArray(), settings::WindowStateVersion);
}

// A layout saved on a larger screen, or the first start's size on a small one, is
// clamped to the screen's available area: nothing of the window starts off-screen.
// Before the window manager has framed the window (the first show), Qt reads its frame
// as 0, and a window as tall as the screen got a title bar beyond it (1280x768 plus
// openbox's 25 px on a 768-px screen): until the frame is known, room is left for a
// common one, and the window fits again once framed (moveEvent).
void MainWindow::fitToScreen()
{
    if (isMaximized() || isFullScreen() || !screen())
        return;
    layout()->activate(); // the minimum size of the docks shown now, not of the saved layout
    const QRect available = screen()->availableGeometry();
    QSize frame = frameGeometry().size() - geometry().size();
    if (frame.isNull()) {
        // Title bars are 25 (openbox) to 37 px (GNOME), borders up to 4 px.
        static constexpr QMargins unknownFrame(4, 40, 4, 4);
        frame = QSize(unknownFrame.left() + unknownFrame.right(), unknownFrame.top() + unknownFrame.bottom());
    }
    const QSize size = geometry().size().boundedTo(available.size() - frame);
    resize(size);
    const QSize outer = size + frame;
    const int x = std::clamp(frameGeometry().x(), available.left(), std::max(available.left(), available.right() + 1 - outer.width()));
    const int y = std::clamp(frameGeometry().y(), available.top(), std::max(available.top(), available.bottom() + 1 - outer.height()));
    move(x, y);
}

void MainWindow::moveEvent(QMoveEvent *event)
{
    QMainWindow::moveEvent(event);
    // The window manager's frame, known once it has framed the window (Qt updates the
    // frame margins before the move it reports): fit with it, once.
    if (m_fitOnceFramed && isVisible() && frameGeometry().size() != geometry().size()) {
        m_fitOnceFramed = false;
        fitToScreen();
    }
}

void MainWindow::saveSettings()
{
    // The layout saved is the document's, not the welcome page's (its docks hidden).
    setWelcomeMode(false);
    QSettings settings;
    settings.setValue(settings::Geometry, saveGeometry());
    settings.setValue(settings::WindowState, saveState(settings::WindowStateVersion));
}

void MainWindow::updateTitle()
{
    const QString shown = !m_document->projectPath().isEmpty() ? m_document->projectPath()
                          : m_document->hasCapture()           ? m_document->capturePath()
                                                               : m_document->exportResults()->openedProgramPath();
    if (shown.isEmpty()) {
        setWindowFilePath(QString());
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
    if (!m_document->hasCapture() || m_document->isLoading())
        return;
    QMenu menu(this);
    menu.setObjectName(QStringLiteral("dimContextMenu"));
    DimContextMenu::populate(&menu, m_document, path, dim, this, [this](const QString &error) {
        if (!error.isEmpty())
            m_banner->showMessage(MessageBanner::Kind::Error, error);
    });
    menu.exec(globalPos);
}

void MainWindow::showNode(int node)
{
    m_details->showNode(node);
    m_plot->showNode(node);
}

void MainWindow::updateStatus()
{
    const LoadedCapturePtr shown = m_document->loaded();
    const QString program = m_document->exportResults()->openedProgramPath();
    if (!shown && !program.isEmpty()) {
        m_statusSummary->setFullText(tr("Exported program %1").arg(QDir::toNativeSeparators(program)));
    } else if (!shown) {
        m_statusSummary->setFullText(tr("Open a capture (Ctrl+O) or drop one here."));
    } else {
        int dynamicLeaves = 0;
        for (const ShapeSummary &s : shown->shapes)
            dynamicLeaves += s.hasDynamicDim() ? 1 : 0;
        m_statusSummary->setFullText(tr("%1 calls, %2 leaves, %3 with dynamic dims%4")
                                     .arg(shown->tree.callCount())
                                     .arg(shown->tree.leafCount())
                                     .arg(dynamicLeaves)
                                     .arg(shown->capture.modelClass.isEmpty()
                                              ? QString()
                                              : QStringLiteral(" — ") + shown->capture.modelClass));
    }
    // The interpreter the export worker runs: the export controller discovers it once
    // (or takes Preferences' choice) and again when Preferences change it (reloadRuntime).
    const PythonRuntime runtime = m_export->client()->runtime();
    const QString python = runtime.isValid() ? runtime.sourceName() : tr("none found");
    m_statusWorker->setFullText(tr("Python: %1 · worker: %2").arg(python, m_workerTorch.isEmpty() ? tr("not started") : m_workerTorch));
    m_statusWorker->setFitToolTip(runtime.isValid() ? runtime.commandLine() : tr("Set one in Edit > Preferences or DIMSCOPE_PYTHON."));
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

void MainWindow::showDocumentation()
{
    auto *dialog = new DocumentationDialog(AppFiles::documentationDir(), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show(); // beside the window, to read while working
}

void MainWindow::showShortcuts()
{
    ShortcutsDialog dialog(findChildren<QAction *>(), this);
    dialog.exec();
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
    m_project->opener()->cancel();
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
