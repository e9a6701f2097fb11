// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow's arrangement, kept apart from mainwindow.cpp: the main area (the
// welcome page, or the document's tabs: its inputs and its exported program), the
// toolbar, the docks' default layout (View > Reset Layout) and the keys that move the
// focus between panels.
#include "mainwindow.h"

#include "glyphicon.h"
#include "dimspanel.h"
#include "explanationspanel.h"
#include "exportcontroller.h"
#include "exportpanel.h"
#include "document/exportresults.h"
#include "exportresultview.h"
#include "inputsview.h"
#include "leafdetailspanel.h"
#include "plotpanel.h"
#include "projectcontroller.h"
#include "spectab.h"
#include "document/projectdocument.h"
#include "welcomepage.h"

#include <QAbstractItemView>
#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QStackedWidget>
#include <QStyle>
#include <QTabWidget>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>
#include <functional>

namespace dimscope {

namespace {

// The widget Tab would reach first inside `root`: a view or editor preferably.
QWidget *firstFocusable(QWidget *root)
{
    if (!root)
        return nullptr;
    const QList<QWidget *> children = root->findChildren<QWidget *>();
    for (QWidget *w : children) {
        if (qobject_cast<QAbstractItemView *>(w) && w->isVisibleTo(root) && w->isEnabled())
            return w;
    }
    for (QWidget *w : children) {
        if ((w->focusPolicy() & Qt::TabFocus) && w->isVisibleTo(root) && w->isEnabled())
            return w;
    }
    return root;
}

} // namespace

void MainWindow::createCentre(QWidget *banner)
{
    m_welcome = new WelcomePage(this);
    connect(m_welcome, &WelcomePage::openFileRequested, this, &MainWindow::openFile);
    connect(m_welcome, &WelcomePage::openDialogRequested, this, &MainWindow::openCaptureDialog);
    connect(m_welcome, &WelcomePage::openProjectDialogRequested, this, &MainWindow::openProjectDialog);
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("documentTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_inputs, tr("Inputs"));
    m_resultView = new ExportResultView(m_document->exportResults());
    connectResultView();
    m_tabs->addTab(m_resultView, tr("Exported Program"));
    m_specTab = new SpecTab(m_document, m_banner);
    m_tabs->addTab(m_specTab, tr("Spec"));
    m_tabs->setTabToolTip(InputsTab, tr("Every input leaf of the captured calls, with its dims and their constraints"));
    m_tabs->setTabToolTip(ProgramTab, tr("The exported program: its inputs in Dim names, and each captured call replayed"));
    m_tabs->setTabToolTip(SpecScriptTab, tr("The export dimscope runs, as a Python script: the dynamic_shapes in the dialect "
                                            "you choose, torch.export.export and dimscope.load_program"));
    connect(m_export, &ExportController::environmentChanged, m_specTab,
            [this] { m_specTab->setTorchVersion(m_export->torchVersion()); });
    m_centre = new QStackedWidget(this);
    m_centre->setObjectName(QStringLiteral("centralStack"));
    // A stacked widget's minimum is its largest page's: the welcome page's two columns
    // side by side (854 px) set the width of a window full of docks, and while a file
    // opened (the welcome page current, the docks shown) the window grew past a
    // laptop's screen. Its size is left out (QStackedLayout skips an Ignored size):
    // shown, it has the window to itself; narrower than its columns, it is cut.
    m_welcome->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    m_centre->addWidget(m_welcome);
    m_centre->addWidget(m_tabs);
    auto *centre = new QWidget(this);
    auto *layout = new QVBoxLayout(centre);
    layout->setContentsMargins(4, 4, 4, 0);
    layout->setSpacing(4);
    layout->addWidget(banner);
    layout->addWidget(m_centre, 1);
    setCentralWidget(centre);

    connect(m_document, &ProjectDocument::captureChanged, this, &MainWindow::updateCentre);
    connect(m_document, &ProjectDocument::loadingChanged, this, &MainWindow::updateCentre);
    // An export's outcome or an opened .pt2 comes to the front; none, the inputs.
    connect(m_document->exportResults(), &ExportResults::changed, this, [this] {
        updateTitle();
        updateCentre();
        if (!m_document->exportResults()->isEmpty())
            m_tabs->setCurrentIndex(ProgramTab);
    });
    // The constructor calls updateCentre() once the docks are arranged and restored.
}

// The welcome page until there is a document; then its tabs: the inputs when it has a
// capture, the program when an export or an opened .pt2 gave one.
void MainWindow::updateCentre()
{
    const bool haveCapture = m_document->hasCapture();
    const bool haveProgram = !m_document->exportResults()->isEmpty();
    m_tabs->setTabVisible(InputsTab, haveCapture);
    m_tabs->setTabVisible(ProgramTab, haveProgram);
    m_tabs->setTabVisible(SpecScriptTab, haveCapture);
    const bool welcome = !haveCapture && !haveProgram && !m_document->isLoading();
    m_centre->setCurrentWidget(welcome ? static_cast<QWidget *>(m_welcome) : m_tabs);
    // A .pt2 opened on its own has nothing for the docks (no leaves, Dims, plot, log or
    // shape decisions): they step aside as for the welcome page, and come back as they
    // were when a capture opens (issue 28 problem 10: five empty panes).
    const bool programAlone = !haveCapture && haveProgram && !m_document->isLoading();
    setWelcomeMode(welcome || programAlone);
    if (!haveProgram)
        m_tabs->setCurrentIndex(InputsTab);
}

// The welcome page (or a .pt2 opened on its own) has the window to itself: the docks,
// empty without a capture, are hidden while it shows and come back as they were when a
// capture opens.
void MainWindow::setWelcomeMode(bool welcome)
{
    if (welcome == m_welcomeMode)
        return;
    m_welcomeMode = welcome;
    if (welcome) {
        m_docksHiddenForWelcome.clear();
        for (QDockWidget *dock : findChildren<QDockWidget *>()) {
            if (dock->isVisibleTo(this) && !dock->isFloating()) {
                m_docksHiddenForWelcome << dock;
                dock->hide();
            }
        }
        return;
    }
    for (const QPointer<QDockWidget> &dock : std::as_const(m_docksHiddenForWelcome)) {
        if (dock)
            dock->show();
    }
    m_docksHiddenForWelcome.clear();
    if (m_defaultDockSizesPending) { // a first start: size them now that they are shown
        m_defaultDockSizesPending = false;
        QTimer::singleShot(0, this, &MainWindow::applyDefaultDockSizes);
    }
}

void MainWindow::createToolBar()
{
    QToolBar *bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->setMovable(false);
    // Themed icons where the platform has them, Qt's own otherwise (a bare X server
    // has no icon theme).
    // A glyph of one colour (the play triangle) follows the theme (GlyphIcon).
    const auto add = [this, bar](const char *objectName, QStyle::StandardPixmap fallback, bool glyph = false) {
        QAction *a = findChild<QAction *>(QLatin1String(objectName));
        if (!a)
            return;
        if (a->icon().isNull())
            a->setIcon(glyph ? GlyphIcon::from(style()->standardIcon(fallback)) : style()->standardIcon(fallback));
        bar->addAction(a);
    };
    add("actionOpenCapture", QStyle::SP_DialogOpenButton);
    add("actionSaveProject", QStyle::SP_DialogSaveButton);
    bar->addSeparator();
    add("actionUndo", QStyle::SP_ArrowBack);
    add("actionRedo", QStyle::SP_ArrowForward);
    bar->addSeparator();
    add("actionExportCpu", QStyle::SP_MediaPlay, true);
    add("actionExportCuda", QStyle::SP_MediaPlay, true);
    add("actionCancelExport", QStyle::SP_BrowserStop);
}

// The docks where a first start puts them: Dims (and Why) on the right, leaf details,
// plot and the export log along the bottom. View > Reset Layout comes back here.
void MainWindow::arrangeDocks()
{
    auto dock = [this](const char *name) { return findChild<QDockWidget *>(QLatin1String(name)); };
    QDockWidget *dims = dock("dimsDock");
    QDockWidget *why = dock("explanationsDock");
    QDockWidget *details = dock("detailsDock");
    QDockWidget *plot = dock("plotDock");
    QDockWidget *log = dock("exportDock");
    for (QDockWidget *d : {dims, why, details, plot, log})
        d->setFloating(false);
    addDockWidget(Qt::RightDockWidgetArea, dims);
    addDockWidget(Qt::RightDockWidgetArea, why);
    splitDockWidget(dims, why, Qt::Vertical);
    addDockWidget(Qt::BottomDockWidgetArea, details);
    addDockWidget(Qt::BottomDockWidgetArea, plot);
    splitDockWidget(details, plot, Qt::Horizontal);
    addDockWidget(Qt::BottomDockWidgetArea, log);
    tabifyDockWidget(plot, log);
    for (QDockWidget *d : {dims, details, plot})
        d->show();
    // The log and the decisions appear when an export gives them something to show.
    log->setVisible(m_export->isExporting() || !m_document->exportResults()->isEmpty());
    why->setVisible(!m_document->exportResults()->explanations().isEmpty());
    plot->raise();
    applyDefaultDockSizes();
}

// In pixels of the window as it is now: called again once the docks are first shown
// at the window's real size (see setWelcomeMode), where proportions set on a window
// not yet sized would come out skewed.
void MainWindow::applyDefaultDockSizes()
{
    auto dock = [this](const char *name) { return findChild<QDockWidget *>(QLatin1String(name)); };
    QDockWidget *dims = dock("dimsDock");
    QDockWidget *why = dock("explanationsDock");

    resizeDocks({dims}, {defaultDimsWidth()}, Qt::Horizontal);
    const int bottom = width() - 8;
    resizeDocks({dock("detailsDock"), dock("plotDock")}, {bottom * 11 / 20, bottom * 9 / 20}, Qt::Horizontal);
    resizeDocks({dock("detailsDock")}, {std::min(260, height() / 3)}, Qt::Vertical);
    if (why->isVisible())
        giveWhyItsShare();
}

// What the Dims need to show whole (DimsPanel::neededWidth), at least 430 px or 30 % of
// the window, at most half of it (the inputs tree keeps the rest).
int MainWindow::defaultDimsWidth() const
{
    const int least = std::max(430, width() * 3 / 10);
    return std::max(least, std::min(m_dims->neededWidth(), width() / 2));
}

// The Why dock under the Dims: two fifths of the column, the Dims three (Qt splits a
// dock that appears evenly, which left the Dims half their rows).
void MainWindow::giveWhyItsShare()
{
    auto *dims = findChild<QDockWidget *>(QStringLiteral("dimsDock"));
    auto *why = findChild<QDockWidget *>(QStringLiteral("explanationsDock"));
    const int column = dims->height() + why->height();
    resizeDocks({dims, why}, {column * 3 / 5, column * 2 / 5}, Qt::Vertical);
}

void MainWindow::resetLayout()
{
    // On the welcome page the docks stay hidden; they come back arranged.
    const bool welcome = m_welcomeMode;
    setWelcomeMode(false);
    arrangeDocks();
    setWelcomeMode(welcome);
    if (QToolBar *bar = findChild<QToolBar *>(QStringLiteral("mainToolBar")))
        bar->show();
}

// View > Go To: a key per panel (Ctrl+1…8), showing and raising its dock first.
void MainWindow::createFocusActions(QMenu *view)
{
    QMenu *goTo = view->addMenu(tr("&Go To"));
    goTo->setObjectName(QStringLiteral("goToMenu"));
    struct Target {
        const char *objectName;
        QString text;
        std::function<QWidget *()> widget;
    };
    const QList<Target> targets = {
        {"actionFocusInputs", tr("&Inputs"), [this] { m_tabs->setCurrentIndex(InputsTab); return m_inputs; }},
        {"actionFocusDims", tr("&Dims"), [this] { return m_dims; }},
        {"actionFocusDetails", tr("&Leaf Details"), [this] { return m_details; }},
        {"actionFocusPlot", tr("&Plot"), [this] { return m_plot; }},
        {"actionFocusProgram", tr("Exported &Program"),
         [this] { m_tabs->setCurrentIndex(ProgramTab); return m_resultView; }},
        {"actionFocusLog", tr("Export &Log"), [this] { return m_exportPanel; }},
        {"actionFocusWhy", tr("&Why"), [this] { return m_explanations; }},
        {"actionFocusSpec", tr("&Spec"), [this] { m_tabs->setCurrentIndex(SpecScriptTab); return m_specTab; }},
    };
    for (int i = 0; i < targets.size(); ++i) {
        const Target &t = targets.at(i);
        QAction *a = goTo->addAction(t.text);
        a->setObjectName(QLatin1String(t.objectName));
        a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
        connect(a, &QAction::triggered, this, [this, widget = t.widget] { focusPanel(widget()); });
    }
}

void MainWindow::focusPanel(QWidget *panel)
{
    if (!panel)
        return;
    for (QWidget *w = panel; w; w = w->parentWidget()) {
        if (auto *dock = qobject_cast<QDockWidget *>(w)) {
            dock->show();
            dock->raise();
            break;
        }
    }
    if (QWidget *target = firstFocusable(panel))
        target->setFocus(Qt::ShortcutFocusReason);
}

// Tab moves between panels, never from cell to cell: a table that takes Tab for its
// cells is a trap for keyboard users (Shift+Tab could not leave it).
void MainWindow::releaseTabFromViews()
{
    for (QAbstractItemView *view : findChildren<QAbstractItemView *>())
        view->setTabKeyNavigation(false);
}

} // namespace dimscope
