// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow's menus, built once with the actions of the objects that carry them out:
// the project controller (open, save, constraints), the document's undo stack, the
// export controller (export, cancel, model, output file) and the window's docks.
#include "mainwindow.h"

#include "aoticontroller.h"
#include "comparecontroller.h"
#include "exportcontroller.h"
#include "inputsview.h"
#include "projectcontroller.h"
#include "recordingcontroller.h"
#include "document/projectdocument.h"
#include "settings/recentfiles.h"
#include "settings/settingskeys.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QUndoStack>

namespace dimscope {

namespace {

// Enabled while the document has a capture (and is not being replaced by another).
void enableWithCapture(ProjectDocument *document, const QList<QAction *> &actions, QObject *context)
{
    const auto update = [document, actions] {
        for (QAction *a : actions)
            a->setEnabled(document->hasCapture() && !document->isLoading());
    };
    QObject::connect(document, &ProjectDocument::captureChanged, context, update);
    QObject::connect(document, &ProjectDocument::loadingChanged, context, update);
    update();
}

QAction *namedAction(QMenu *menu, const QString &objectName, const QString &text)
{
    QAction *a = menu->addAction(text);
    a->setObjectName(objectName);
    return a;
}

} // namespace

void MainWindow::createMenus()
{
    createFileMenu();
    createEditMenu();
    createViewMenu();
    createExportMenu();
    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->setObjectName(QStringLiteral("helpMenu"));
    QAction *docs = namedAction(help, QStringLiteral("actionDocumentation"), tr("&Documentation"));
    docs->setShortcut(QKeySequence::HelpContents);
    connect(docs, &QAction::triggered, this, &MainWindow::showDocumentation);
    QAction *keys = namedAction(help, QStringLiteral("actionShortcuts"), tr("&Keyboard Shortcuts"));
    connect(keys, &QAction::triggered, this, &MainWindow::showShortcuts);
    help->addSeparator();
    QAction *about = help->addAction(tr("&About dimscope"), this, &MainWindow::showAbout);
    about->setObjectName(QStringLiteral("actionAbout"));
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::createFileMenu()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->setObjectName(QStringLiteral("fileMenu"));
    file->setToolTipsVisible(true);
    QAction *open = namedAction(file, QStringLiteral("actionOpenCapture"), tr("&Open Capture…"));
    open->setIcon(QIcon::fromTheme(QStringLiteral("document-open")));
    open->setShortcut(QKeySequence::Open);
    connect(open, &QAction::triggered, this, &MainWindow::openCaptureDialog);
    file->addAction(m_export->openModelAction());
    QAction *openProject = namedAction(file, QStringLiteral("actionOpenProject"), tr("Open &Project…"));
    openProject->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    connect(openProject, &QAction::triggered, this, &MainWindow::openProjectDialog);
    file->addSeparator();
    file->addAction(m_recording->newRecordingAction());
    file->addAction(m_recording->recordMoreAction());
    file->addSeparator();
    file->addAction(m_compare->compareCapturesAction());
    QAction *save = namedAction(file, QStringLiteral("actionSaveProject"), tr("&Save Project"));
    save->setIcon(QIcon::fromTheme(QStringLiteral("document-save")));
    save->setShortcut(QKeySequence::Save);
    connect(save, &QAction::triggered, m_project, &ProjectController::save);
    QAction *saveAs = namedAction(file, QStringLiteral("actionSaveProjectAs"), tr("Save Project &As…"));
    saveAs->setShortcut(QKeySequence::SaveAs);
    connect(saveAs, &QAction::triggered, m_project, &ProjectController::saveAs);
    enableWithCapture(m_document, {save, saveAs}, this);
    m_recentMenu = file->addMenu(tr("&Recent Files"));
    m_recentMenu->setObjectName(QStringLiteral("recentMenu"));
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    rebuildRecentMenu();
    file->addSeparator();
    QAction *quit = namedAction(file, QStringLiteral("actionQuit"), tr("&Quit"));
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);
}

void MainWindow::createEditMenu()
{
    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    edit->setObjectName(QStringLiteral("editMenu"));
    QAction *undo = undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setObjectName(QStringLiteral("actionUndo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction *redo = undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setObjectName(QStringLiteral("actionRedo"));
    redo->setShortcut(QKeySequence::Redo);
    // The toolbar's buttons say Undo / Redo: with the command's text their width changed
    // with every edit and moved Export on CPU. The command is in the Edit menu and the
    // tooltip (which follows the text).
    undo->setIconText(tr("Undo"));
    redo->setIconText(tr("Redo"));
    // Undo is an edit too: not while another capture is being opened into the document
    // (the stack only changes through edits, which wait, so canUndo holds meanwhile).
    connect(m_document, &ProjectDocument::loadingChanged, this, [this, undo, redo](bool loading) {
        undo->setEnabled(!loading && undoStack()->canUndo());
        redo->setEnabled(!loading && undoStack()->canRedo());
    });
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    QAction *find = namedAction(edit, QStringLiteral("actionFind"), tr("&Find…"));
    find->setShortcut(QKeySequence::Find);
    connect(find, &QAction::triggered, m_inputs, &InputsView::focusFilter);
    edit->addSeparator();
    QAction *prefs = namedAction(edit, QStringLiteral("actionPreferences"), tr("&Preferences…"));
    prefs->setShortcut(QKeySequence::Preferences);
    connect(prefs, &QAction::triggered, this, &MainWindow::showPreferences);
}

void MainWindow::createViewMenu()
{
    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->setObjectName(QStringLiteral("viewMenu"));
    view->addAction(tr("&Expand All"), m_inputs, &InputsView::expandAll);
    view->addAction(tr("&Collapse All"), m_inputs, &InputsView::collapseAll);
    view->addSeparator();
    createFocusActions(view);
    QMenu *panels = view->addMenu(tr("&Panels"));
    panels->setObjectName(QStringLiteral("panelsMenu"));
    for (QDockWidget *dock : findChildren<QDockWidget *>())
        panels->addAction(dock->toggleViewAction());
    view->addSeparator();
    QAction *reset = namedAction(view, QStringLiteral("actionResetLayout"), tr("&Reset Layout"));
    reset->setToolTip(tr("Every panel back where dimscope first put it"));
    connect(reset, &QAction::triggered, this, &MainWindow::resetLayout);
}

void MainWindow::createExportMenu()
{
    QMenu *menu = menuBar()->addMenu(tr("E&xport"));
    menu->setObjectName(QStringLiteral("exportMenu"));
    menu->setToolTipsVisible(true);
    menu->addAction(m_export->exportCpuAction());
    menu->addAction(m_export->exportCudaAction());
    menu->addAction(m_export->cancelAction());
    menu->addSeparator();
    QAction *copyShapes = namedAction(menu, QStringLiteral("actionCopyDynamicShapes"), tr("Copy dynamic_shapes as &Python"));
    copyShapes->setToolTip(tr("The dynamic_shapes of the current constraints as a Python snippet"));
    connect(copyShapes, &QAction::triggered, m_project, &ProjectController::copyDynamicShapes);
    QAction *saveJson = namedAction(menu, QStringLiteral("actionSaveConstraints"), tr("&Save Constraints as JSON…"));
    saveJson->setToolTip(tr("The constraint set as a dimscope.constraints JSON document"));
    connect(saveJson, &QAction::triggered, m_project, [this] { m_project->saveConstraintsJson(); });
    QAction *options = namedAction(menu, QStringLiteral("actionExportOptions"), tr("Export &Options…"));
    options->setToolTip(tr("Example call, strict mode and fixes used by the export"));
    connect(options, &QAction::triggered, m_project, &ProjectController::editExportOptions);
    enableWithCapture(m_document, {copyShapes, saveJson, options}, this);
    menu->addSeparator();
    menu->addAction(m_compare->compareExportsAction());
    menu->addAction(m_export->verifyWithAction());
    menu->addAction(m_export->stopVerifyingWithAction());
    menu->addAction(m_export->outputFileAction());
    menu->addSeparator();
    menu->addAction(m_aoti->compileAction());
    menu->addAction(m_aoti->cancelAction());
    // Opening the menu is when CUDA matters: start the worker then, not at launch.
    connect(menu, &QMenu::aboutToShow, m_export, [this] {
        if (m_document->hasCapture())
            m_export->ensureWorker();
    });
}

void MainWindow::rebuildRecentMenu()
{
    QSettings settings;
    const QStringList files = RecentFiles(settings).files();
    m_recentMenu->clear();
    for (int i = 0; i < files.size(); ++i) {
        const QString path = files.at(i);
        // The folder too: captures of several runs often share a name.
        QString folder = QDir::toNativeSeparators(QFileInfo(path).absolutePath());
        const QString home = QDir::toNativeSeparators(QDir::homePath());
        if (folder.startsWith(home) && home.size() > 1)
            folder = QLatin1Char('~') + folder.mid(home.size());
        QAction *a = m_recentMenu->addAction(QStringLiteral("&%1 %2 — %3").arg(i + 1).arg(QFileInfo(path).fileName(), folder));
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
    // Everything openFile() takes is shown by default: projects and .pt2 files too.
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Capture"), folder,
        tr("dimscope files (*.safetensors *.dimscope *.pt2);;Captures (*.safetensors);;Projects (*.dimscope);;"
           "Exported programs (*.pt2);;All files (*)"));
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

} // namespace dimscope
