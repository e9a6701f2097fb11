// SPDX-License-Identifier: GPL-3.0-or-later
// The window around the document (issue 13): the welcome page until a document is
// open, the exported program in the main area, everything shown belonging to the
// open document (a .pt2 is a document of its own), View > Reset Layout, the keys
// that move between panels, the banner's Locate… for a moved capture, a CUDA
// project's notice, Help's documentation and shortcuts. No torch: .pt2 files come
// from tests/fixtures, the worker is pointed at an interpreter that does not exist.
#include "dimspanel.h"
#include "documentationdialog.h"
#include "explanationspanel.h"
#include "exportcontroller.h"
#include "exportpanel.h"
#include "exportresultview.h"
#include "filedialoganswer.h"
#include "inputsview.h"
#include "kvcapture.h"
#include "leafdetailspanel.h"
#include "document/exportresults.h"
#include "document/documentopener.h"
#include "mainwindow.h"
#include "projectcontroller.h"
#include "messagebanner.h"
#include "models/dimsmodel.h"
#include "models/explanationsmodel.h"
#include "models/inputsmodel.h"
#include "models/programsmodel.h"
#include "models/pt2inputsmodel.h"
#include "models/verificationmodel.h"
#include "project/projectfile.h"
#include "document/projectdocument.h"
#include "pt2programview.h"
#include "../pt2/pt2fixtures.h"
#include "settings/recentfiles.h"
#include "shortcutsdialog.h"
#include "welcomepage.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QToolBar>
#include <QTreeView>
#include <QTreeWidget>
#include <QUndoStack>
#include "deterministictestmain.h"
#include "throwawaysettings.h"

#include <sys/stat.h>

using namespace dimscope;

namespace {

QString demoCapture() { return QStringLiteral(DIMSCOPE_SOURCE_DIR "/resources/demo/demo-capture.safetensors"); }
QString samplePt2() { return QStringLiteral(DIMSCOPE_SOURCE_DIR "/tests/fixtures/torch-2.6/llm-like-cache.pt2"); }

QWidget *centralPage(MainWindow &window)
{
    return window.findChild<QStackedWidget *>(QStringLiteral("centralStack"))->currentWidget();
}

bool openAndWait(MainWindow &window, const QString &path)
{
    QSignalSpy shown(&window, &MainWindow::captureShown);
    QSignalSpy failed(&window, &MainWindow::openFailed);
    if (!window.openFile(path))
        return false;
    return QTest::qWaitFor([&] { return !shown.isEmpty() || !failed.isEmpty(); }, 20000) && failed.isEmpty();
}

bool openPt2AndWait(MainWindow &window, const QString &path)
{
    QSignalSpy opened(window.projectController()->opener(), &DocumentOpener::opened);
    QSignalSpy failed(window.projectController()->opener(), &DocumentOpener::failed);
    if (!window.openFile(path))
        return false;
    return QTest::qWaitFor([&] { return !opened.isEmpty() || !failed.isEmpty(); }, 20000) && failed.isEmpty();
}

// A project next to a copy of the demo capture, in `folder`.
QString writeProject(const QString &folder, const QString &device = QStringLiteral("cpu"))
{
    const QString capture = folder + QStringLiteral("/capture.safetensors");
    QFile::copy(demoCapture(), capture);
    const QString project = folder + QStringLiteral("/run.dimscope");
    QFile f(project);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(QStringLiteral("{\"format\": \"dimscope.project\", \"version\": 1, \"capture\": \"capture.safetensors\", "
                           "\"export\": {\"device\": \"%1\"}}")
                .arg(device)
                .toUtf8());
    return project;
}

} // namespace

class TestDocumentWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void welcomePageUntilADocumentOpens();
    void welcomePageOpensRecentFilesAndTheDemo();
    void welcomePageListsTheFileClosedWhenShownAgain();
    void exportedProgramFillsTheMainArea();
    void programAloneHasTheWindowInDimNames();
    void openingAnotherDocumentClearsTheResult();
    void selectedDimBelongsToItsDocument();
    void resetLayoutPutsEveryDockBack();
    void keysReachEveryPanel();
    void movedCaptureCanBeLocated();
    void captureThatIsNoFileSaysWhatItIs_data();
    void captureThatIsNoFileSaysWhatItIs();
    void bannerShowsFileTextEscaped();
    void cudaProjectSaysSoWhenOpened();
    void largeProjectIsReadOffTheGuiThread();
    void openErrorsNameThePathOnce();
    void helpListsShortcutsAndDocumentation();
    void dimsAndLeafTablesCopyAsText();
    void statisticsWaitForTheTreesPaint();
    void partialResultSaysWhoServesEachCallAndWhatToDo();
    void applyFixesLeavesBreakingOnesUntickedAndFollowsUndo();

private:
    QTemporaryDir m_dir;
};

void TestDocumentWindow::initTestCase()
{
    QVERIFY(test::useThrowawaySettings(m_dir, QStringLiteral("tst_documentwindow")));
    // No real worker: a CUDA project's notice starts one.
    qputenv("DIMSCOPE_PYTHON", QByteArrayLiteral("/nonexistent/python3"));
}

void TestDocumentWindow::init() { QSettings().clear(); }

void TestDocumentWindow::welcomePageUntilADocumentOpens()
{
    MainWindow window;
    window.show();
    QCOMPARE(centralPage(window), static_cast<QWidget *>(window.welcomePage()));
    QVERIFY(window.findChild<QLabel *>(QStringLiteral("welcomeNoRecent"))->isVisible());
    QVERIFY(window.welcomePage()->recordSnippet()->toPlainText().contains(QLatin1String("InputRecorder")));
    QVERIFY(window.findChild<QToolBar *>(QStringLiteral("mainToolBar"))->isVisible());
    // The page has the window to itself: the docks, empty without a document, wait.
    auto *dims = window.findChild<QDockWidget *>(QStringLiteral("dimsDock"));
    QVERIFY(!dims->isVisible());

    window.showCapture(test::kvCapture(3, 2), QStringLiteral("in-memory"));
    QTRY_VERIFY(window.document()->hasCapture());
    QCOMPARE(centralPage(window), static_cast<QWidget *>(window.documentTabs()));
    QVERIFY(window.documentTabs()->isTabVisible(MainWindow::InputsTab));
    QVERIFY(!window.documentTabs()->isTabVisible(MainWindow::ProgramTab)); // nothing exported yet
    QCOMPARE(window.documentTabs()->currentWidget(), static_cast<QWidget *>(window.inputsView()));
    QVERIFY(dims->isVisible());
    QVERIFY(window.findChild<QDockWidget *>(QStringLiteral("detailsDock"))->isVisible());
}

void TestDocumentWindow::welcomePageOpensRecentFilesAndTheDemo()
{
    {
        QSettings settings;
        RecentFiles(settings).add(demoCapture());
    }
    MainWindow window;
    window.show();
    QListWidget *recent = window.welcomePage()->recentList();
    QTRY_COMPARE(recent->count(), 1);
    // The name and its folder, the full path in the tooltip.
    QVERIFY2(recent->item(0)->text().startsWith(QStringLiteral("demo-capture.safetensors — ")), qPrintable(recent->item(0)->text()));
    QVERIFY(recent->item(0)->text().endsWith(QLatin1String("demo")));
    QCOMPARE(recent->item(0)->toolTip(), demoCapture());
    QSignalSpy shown(&window, &MainWindow::captureShown);
    emit recent->itemActivated(recent->item(0));
    QVERIFY(shown.wait(20000));
    QCOMPARE(window.document()->capturePath(), demoCapture());

    window.document()->clear();
    QTRY_COMPARE(centralPage(window), static_cast<QWidget *>(window.welcomePage()));
    auto *demo = window.findChild<QPushButton *>(QStringLiteral("welcomeOpenDemo"));
    QVERIFY(demo->isEnabled());
    demo->click();
    QVERIFY(shown.wait(20000));
    QVERIFY(window.document()->projectPath().endsWith(QLatin1String("resources/demo/demo.dimscope")));
    QCOMPARE(window.document()->modelRef(), QStringLiteral("dimscope.demo:make_model"));
}

// The page reads the recent files each time it is shown: back on it after closing a
// document, the file just opened heads the list.
void TestDocumentWindow::welcomePageListsTheFileClosedWhenShownAgain()
{
    MainWindow window;
    window.show();
    QListWidget *recent = window.welcomePage()->recentList();
    auto *noRecent = window.findChild<QLabel *>(QStringLiteral("welcomeNoRecent"));
    QCOMPARE(recent->count(), 0);
    QVERIFY(noRecent->isVisible());

    QVERIFY(openAndWait(window, demoCapture()));
    window.document()->clear();
    QTRY_COMPARE(centralPage(window), static_cast<QWidget *>(window.welcomePage()));
    QCOMPARE(recent->count(), 1);
    QCOMPARE(recent->item(0)->data(Qt::UserRole).toString(), demoCapture());
    QVERIFY(recent->isVisible());
    QVERIFY(!noRecent->isVisible());
}

// A .pt2 opened on its own, as dimscope's phased export writes it (two programs, the
// Dim names recorded): every program a tab, its sizes in Dim names, no empty docks or
// captured-calls table, and every header's text whole (issue 28 problem 10: "s23 ×
// s53", five empty panes and a header cut to "xported prograr"). A capture opened
// next brings the docks back.
void TestDocumentWindow::programAloneHasTheWindowInDimNames()
{
    using namespace pt2fixtures;
    const QString plain = m_dir.filePath(QStringLiteral("phases-plain.pt2"));
    QVERIFY(repackAsArchive(samplePt2(), plain, QStringLiteral("phases"), QStringLiteral("model"), {QStringLiteral("phase2")}));
    Records records = readZip(plain);
    records.append({QStringLiteral("phases/extra/dimscope_dims.json"),
                    R"({"format": "dimscope.pt2_dims", "version": 1, "programs": {
                        "model": {"symbols": {"s0": "batch", "s1": "seq_len"}}, "phase2": {"symbols": {"s0": "bsz"}}}})"});
    const QString archive = m_dir.filePath(QStringLiteral("phases.pt2"));
    QVERIFY(writeZip(archive, records));

    MainWindow window;
    window.resize(1280, 800);
    window.show();
    QVERIFY(openAndWait(window, demoCapture()));
    QVERIFY(openPt2AndWait(window, archive));
    ExportResultView *result = window.exportResultView();
    Pt2ProgramView *view = result->programView();
    // every program, a tab each, in its recorded Dim names
    QTabBar *programs = view->findChild<QTabBar *>(QStringLiteral("pt2ProgramTabs"));
    QVERIFY(programs && programs->isVisible());
    QCOMPARE(programs->count(), 2);
    QCOMPARE(programs->tabText(0), QStringLiteral("model"));
    QCOMPARE(programs->tabText(1), QStringLiteral("phase2"));
    const auto sizes = [view] { return view->inputsModel()->index(0, Pt2InputsModel::DimsColumn).data().toString(); };
    QCOMPARE(sizes(), QStringLiteral("batch × seq_len"));
    QCOMPARE(view->inputsModel()->index(0, Pt2InputsModel::SymbolsColumn).data().toString(), QStringLiteral("s0 × s1"));
    programs->setCurrentIndex(1);
    QCOMPARE(sizes(), QStringLiteral("bsz × s1"));
    QCOMPARE(view->rangesView()->topLevelItem(0)->text(1), QStringLiteral("bsz"));
    // the program has the window: no dock, and no captured-calls table, is shown empty
    for (QDockWidget *dock : window.findChildren<QDockWidget *>())
        QVERIFY2(!dock->isVisible(), qPrintable(dock->objectName()));
    QVERIFY(!result->findChild<QTableView *>(QStringLiteral("verificationTable"))->isVisible());
    QVERIFY2(result->width() > window.width() * 9 / 10, qPrintable(QString::number(result->width())));
    // every header's text whole: the tab's and each shown table column's
    QTabBar *tabs = window.documentTabs()->tabBar();
    QVERIFY(tabs->tabRect(MainWindow::ProgramTab).width()
            >= tabs->fontMetrics().horizontalAdvance(tabs->tabText(MainWindow::ProgramTab)));
    for (QHeaderView *header : result->findChildren<QHeaderView *>()) {
        if (!header->isVisible() || header->orientation() != Qt::Horizontal)
            continue;
        for (int i = 0; i < header->count(); ++i) {
            const QString text = header->model()->headerData(i, Qt::Horizontal).toString();
            if (header->isSectionHidden(i) || text.isEmpty())
                continue;
            QVERIFY2(header->sectionSize(i) >= header->fontMetrics().horizontalAdvance(text),
                     qPrintable(QStringLiteral("%1 / %2: %3 px").arg(header->parentWidget()->objectName(), text).arg(header->sectionSize(i))));
        }
    }
    // and what a single-program file without names says: torch's symbols, no tabs
    QVERIFY(openPt2AndWait(window, samplePt2()));
    QVERIFY(!programs->isVisible());
    QCOMPARE(sizes(), QStringLiteral("s0 × s1"));
    QVERIFY(result->findChild<QLabel *>(QStringLiteral("exportHeadline"))->text().contains(QLatin1String("records no Dim names")));
    // a capture brings the docks back
    QVERIFY(openAndWait(window, demoCapture()));
    QTRY_VERIFY(window.findChild<QDockWidget *>(QStringLiteral("dimsDock"))->isVisible());
    QVERIFY(window.findChild<QDockWidget *>(QStringLiteral("plotDock"))->isVisible());
}

// An exported program (here a .pt2 opened as the document) fills the main area, not a
// dock; the window is titled after it and a capture's inputs tab is gone.
void TestDocumentWindow::exportedProgramFillsTheMainArea()
{
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    QVERIFY(openAndWait(window, demoCapture()));
    QVERIFY(openPt2AndWait(window, samplePt2()));
    QCOMPARE(centralPage(window), static_cast<QWidget *>(window.documentTabs()));
    QCOMPARE(window.documentTabs()->currentIndex(), int(MainWindow::ProgramTab));
    QVERIFY(!window.documentTabs()->isTabVisible(MainWindow::InputsTab)); // the .pt2 replaced the capture
    QVERIFY(!window.document()->hasCapture());
    QVERIFY(window.windowTitle().startsWith(QLatin1String("llm-like-cache.pt2")));
    ExportResultView *result = window.exportResultView();
    QVERIFY(result->programView()->inputsModel()->rowCount() > 0);
    // Unbounded ranges read ∞ as everywhere else in the window, not torch's "oo"
    // (the fixture's ranges are all bounded: unbound one).
    Pt2Program program = *window.document()->exportResults()->program();
    QVERIFY(!program.ranges.isEmpty());
    program.ranges.first().max.reset();
    result->programView()->setProgram(program);
    QTreeWidget *ranges = result->programView()->rangesView();
    bool unbounded = false;
    for (int i = 0; i < ranges->topLevelItemCount(); ++i) {
        const QString range = ranges->topLevelItem(i)->text(2);
        QVERIFY2(!range.contains(QLatin1String("oo")), qPrintable(range));
        unbounded = unbounded || range.contains(QStringLiteral("∞"));
    }
    QVERIFY(unbounded);
    // It has the room of the main area: most of the window's width.
    QVERIFY2(result->width() > window.width() / 2, qPrintable(QString::number(result->width())));
    QVERIFY(!window.findChild<QDockWidget *>(QStringLiteral("exportResultDock")));
}

// Everything shown about an export belongs to the document it exported: another
// capture opened clears the program, its tab and the export log.
void TestDocumentWindow::openingAnotherDocumentClearsTheResult()
{
    MainWindow window;
    window.show();
    QVERIFY(openPt2AndWait(window, samplePt2()));
    ExportResults *results = window.document()->exportResults();
    window.exportPanel()->appendLog(QStringLiteral("stdout"), QStringLiteral("a line of the previous export"));
    QVERIFY(results->program().has_value());
    QVERIFY(openAndWait(window, demoCapture()));
    QVERIFY(!window.documentTabs()->isTabVisible(MainWindow::ProgramTab));
    QCOMPARE(window.documentTabs()->currentIndex(), int(MainWindow::InputsTab));
    QCOMPARE(window.exportResultView()->programView()->inputsModel()->rowCount(), 0);
    QVERIFY(!results->program().has_value());
    QVERIFY(window.exportPanel()->logView()->toPlainText().isEmpty());
    QVERIFY(window.windowTitle().startsWith(QLatin1String("demo-capture.safetensors")));
}

namespace {

// The leaves the inputs tree tints as those of the selected Dim.
int tintedLeaves(MainWindow &window)
{
    const InputsModel *model = window.inputsView()->model();
    int tinted = 0;
    const QStringList paths = {QStringLiteral("input_ids"), QStringLiteral("attention_mask"),
                               QStringLiteral("past_key_values.key_cache[0]"), QStringLiteral("past_key_values.value_cache[0]")};
    for (const QString &path : paths) {
        const QModelIndex leaf = model->indexForPath(path);
        tinted += leaf.isValid() && leaf.data(Qt::BackgroundRole).isValid() ? 1 : 0;
    }
    return tinted;
}

// Selects the Dims panel's first Dim as a click would; returns its name.
QString selectFirstDim(MainWindow &window)
{
    auto *table = window.dimsPanel()->findChild<QTableView *>(QStringLiteral("dimsTable"));
    const QModelIndex first = table->model()->index(0, DimsModel::NameColumn);
    table->setCurrentIndex(first);
    return first.data().toString();
}

} // namespace

// The Dim selected in the Dims panel (the Why dock's filter, the tree's tint of its
// leaves) is the document's: deleting that Dim or opening another document ends it.
void TestDocumentWindow::selectedDimBelongsToItsDocument()
{
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    window.showCapture(test::kvCapture(3, 2), QStringLiteral("a"));
    QTRY_VERIFY(window.document()->hasCapture());
    ExplanationsModel *why = window.explanationsPanel()->model();
    const QString dim = selectFirstDim(window);
    QVERIFY(!dim.isEmpty());
    QCOMPARE(why->dimFilter(), dim);
    QVERIFY(tintedLeaves(window) > 0);
    // Deleted, the Dim is no longer shown as selected anywhere.
    window.findChild<QAction *>(QStringLiteral("actionDeleteDim"))->trigger();
    QTRY_VERIFY(window.dimsPanel()->model()->rowOf(dim) < 0);
    QCOMPARE(why->dimFilter(), QString());
    QCOMPARE(tintedLeaves(window), 0);
    // Selected again, then another document: nothing of the first one's selection.
    const QString again = selectFirstDim(window);
    QCOMPARE(why->dimFilter(), again);
    QVERIFY(tintedLeaves(window) > 0);
    QSignalSpy shown(&window, &MainWindow::captureShown);
    window.showCapture(test::kvCapture(4, 2), QStringLiteral("b"));
    QVERIFY(shown.wait(20000));
    QCOMPARE(why->dimFilter(), QString());
    QCOMPARE(tintedLeaves(window), 0);
}

void TestDocumentWindow::resetLayoutPutsEveryDockBack()
{
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    window.showCapture(test::kvCapture(3, 2), QStringLiteral("in-memory"));
    QTRY_VERIFY(window.document()->hasCapture());
    auto *dims = window.findChild<QDockWidget *>(QStringLiteral("dimsDock"));
    auto *details = window.findChild<QDockWidget *>(QStringLiteral("detailsDock"));
    auto *plot = window.findChild<QDockWidget *>(QStringLiteral("plotDock"));
    QCOMPARE(window.dockWidgetArea(dims), Qt::RightDockWidgetArea);
    QCOMPARE(window.dockWidgetArea(details), Qt::BottomDockWidgetArea);
    // A layout drifted by hand: Dims floating, details moved to the left, plot closed.
    dims->setFloating(true);
    window.addDockWidget(Qt::LeftDockWidgetArea, details);
    plot->close();
    QTest::qWait(50);
    window.findChild<QAction *>(QStringLiteral("actionResetLayout"))->trigger();
    QTest::qWait(50);
    QVERIFY(!dims->isFloating());
    QCOMPARE(window.dockWidgetArea(dims), Qt::RightDockWidgetArea);
    QCOMPARE(window.dockWidgetArea(details), Qt::BottomDockWidgetArea);
    QCOMPARE(window.dockWidgetArea(plot), Qt::BottomDockWidgetArea);
    QVERIFY(dims->isVisible() && details->isVisible() && plot->isVisible());
    // Each dock wide enough for its title ("Leaf details", not "Leaf deta…").
    QVERIFY(details->width() >= details->fontMetrics().horizontalAdvance(details->windowTitle()) + 40);
}

void TestDocumentWindow::keysReachEveryPanel()
{
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    window.showCapture(test::kvCapture(3, 2), QStringLiteral("in-memory"));
    QTRY_VERIFY(window.document()->hasCapture());
    // Ctrl+2: the Dims table; Ctrl+1: the inputs tree.
    QTest::keyClick(&window, Qt::Key_2, Qt::ControlModifier);
    QTRY_VERIFY(window.findChild<QDockWidget *>(QStringLiteral("dimsDock"))->isAncestorOf(QApplication::focusWidget()));
    QVERIFY(qobject_cast<QAbstractItemView *>(QApplication::focusWidget()));
    QTest::keyClick(&window, Qt::Key_1, Qt::ControlModifier);
    QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget *>(window.findChild<QTreeView *>(QStringLiteral("inputsTree"))));
    // No view keeps Tab for its cells: Tab and Shift+Tab always leave a table.
    for (QAbstractItemView *view : window.findChildren<QAbstractItemView *>())
        QVERIFY2(!view->tabKeyNavigation(), qPrintable(view->objectName()));
    // Tab from the tree goes on to another panel, and Shift+Tab comes back.
    QWidget *tree = QApplication::focusWidget();
    QTest::keyClick(tree, Qt::Key_Tab);
    QTRY_VERIFY(QApplication::focusWidget() != tree);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Backtab);
    QTRY_COMPARE(QApplication::focusWidget(), tree);
    // Each Go To key has its own shortcut, listed in the View menu.
    QStringList keys;
    for (const char *name : {"actionFocusInputs", "actionFocusDims", "actionFocusDetails", "actionFocusPlot",
                             "actionFocusProgram", "actionFocusLog", "actionFocusWhy"})
        keys << window.findChild<QAction *>(QLatin1String(name))->shortcut().toString();
    keys.removeDuplicates();
    QCOMPARE(keys.size(), 7);
}

void TestDocumentWindow::movedCaptureCanBeLocated()
{
    QTemporaryDir folder;
    const QString project = writeProject(folder.path());
    QVERIFY(!project.isEmpty());
    const QString moved = folder.filePath(QStringLiteral("moved.safetensors"));
    QVERIFY(QFile::rename(folder.filePath(QStringLiteral("capture.safetensors")), moved));
    MainWindow window;
    window.show();
    QSignalSpy failed(&window, &MainWindow::openFailed);
    QVERIFY(window.openFile(project)); // read off the GUI thread; then its capture is found missing
    QVERIFY(failed.wait(15000));
    QCOMPARE(failed.size(), 1);
    QPushButton *locate = window.banner()->actionButton();
    QVERIFY(window.banner()->isVisible());
    QVERIFY(locate->isVisible());
    QCOMPARE(locate->text(), QStringLiteral("Locate…"));
    QVERIFY2(window.banner()->text().contains(QLatin1String("capture.safetensors")), qPrintable(window.banner()->text()));
    // Locate… asks for the capture; the project opens with it and is modified (the
    // new place is saved with it).
    QSignalSpy shown(&window, &MainWindow::captureShown);
    QAction click;
    connect(&click, &QAction::triggered, locate, &QPushButton::click);
    QVERIFY(test::answerFileDialog(&click, moved) > 0);
    QVERIFY(shown.wait(20000));
    QCOMPARE(window.document()->capturePath(), moved);
    QCOMPARE(window.document()->projectPath(), project);
    QVERIFY(window.document()->isModified());
    QString error;
    QVERIFY2(window.document()->save(project, &error), qPrintable(error));
    QVERIFY(!window.document()->isModified());
    QVERIFY(openAndWait(window, project)); // the saved project now names the new place
    QCOMPARE(window.document()->capturePath(), moved);
}

// A capture that is there but is no file (a FIFO, a device, a folder, a symbolic link
// that loops) is not "moved": the banner says what it is and offers no Locate…
// (issue 26 item 11).
void TestDocumentWindow::captureThatIsNoFileSaysWhatItIs_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("reason");
    QTest::newRow("FIFO") << QStringLiteral("fifo") << QStringLiteral("is a FIFO (named pipe), not a regular file");
    QTest::newRow("device") << QStringLiteral("device") << QStringLiteral("is a character device, not a regular file");
    QTest::newRow("folder") << QStringLiteral("folder") << QStringLiteral("is a directory, not a regular file");
    QTest::newRow("symbolic link loop") << QStringLiteral("loop") << QStringLiteral("symbolic links");
}

void TestDocumentWindow::captureThatIsNoFileSaysWhatItIs()
{
    QFETCH(QString, kind);
    QFETCH(QString, reason);
    QTemporaryDir folder;
    const QString project = writeProject(folder.path());
    QVERIFY(!project.isEmpty());
    const QString capture = folder.filePath(QStringLiteral("capture.safetensors"));
    QVERIFY(QFile::remove(capture));
    const QByteArray name = QFile::encodeName(capture);
    if (kind == QLatin1String("fifo"))
        QCOMPARE(::mkfifo(name.constData(), 0600), 0);
    else if (kind == QLatin1String("device"))
        QVERIFY(QFile::link(QStringLiteral("/dev/null"), capture));
    else if (kind == QLatin1String("folder"))
        QVERIFY(QDir().mkdir(capture));
    else
        QVERIFY(QFile::link(capture, capture)); // a link to itself: ELOOP
    MainWindow window;
    window.show();
    QSignalSpy failed(&window, &MainWindow::openFailed);
    window.openFile(project);
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 15000);
    const QString text = window.banner()->text();
    QVERIFY(window.banner()->isVisible());
    QVERIFY2(text.contains(reason), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("capture.safetensors")), qPrintable(text));
    QVERIFY2(!text.contains(QLatin1String("not there")), qPrintable(text));
    QVERIFY(!window.banner()->actionButton()->isVisible());
}

// The banner quotes names from files: shown as plain text, with bidi overrides and
// controls escaped as on a terminal (docs/security.md), never as HTML.
void TestDocumentWindow::bannerShowsFileTextEscaped()
{
    QTemporaryDir folder;
    const char32_t rlo = 0x202e;
    const QString hostile = QStringLiteral("<b>x</b>") + QString::fromUcs4(&rlo, 1) + QStringLiteral("txt.exe");
    const QString project = folder.filePath(QStringLiteral("run.dimscope"));
    QFile f(project);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QJsonDocument(QJsonObject{{QStringLiteral("format"), QStringLiteral("dimscope.project")},
                                      {QStringLiteral("version"), 1},
                                      {QStringLiteral("capture"), QString(hostile + QStringLiteral(".safetensors"))}})
                .toJson());
    f.close();
    MainWindow window;
    window.show();
    QSignalSpy failed(&window, &MainWindow::openFailed);
    window.openFile(project);
    QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 15000);
    auto *label = window.banner()->findChild<QLabel *>(QStringLiteral("messageBannerText"));
    QVERIFY(label);
    QCOMPARE(label->textFormat(), Qt::PlainText);
    QVERIFY2(label->text().contains(QLatin1String("<b>x</b>\\u202etxt.exe")), qPrintable(label->text()));
    QVERIFY(!label->text().contains(QString::fromUcs4(&rlo, 1)));
}

void TestDocumentWindow::cudaProjectSaysSoWhenOpened()
{
    QTemporaryDir folder;
    const QString project = writeProject(folder.path(), QStringLiteral("cuda"));
    MainWindow window;
    window.show();
    QVERIFY(openAndWait(window, project));
    QCOMPARE(window.document()->exportOptions().device, QStringLiteral("cuda"));
    QVERIFY(window.banner()->isVisible());
    QVERIFY2(window.banner()->text().contains(QLatin1String("run.dimscope exports on CUDA")), qPrintable(window.banner()->text()));
    // The greyed CUDA item says why in its text, not only in its tooltip.
    QAction *cuda = window.findChild<QAction *>(QStringLiteral("actionExportCuda"));
    QVERIFY(!cuda->isEnabled());
    QVERIFY2(cuda->text().contains(QLatin1Char('(')), qPrintable(cuda->text()));
}

// A project is read off the GUI thread (ProjectLoader): one with a large constraint set
// (here 10,000 Dims, the most a set may have, and 100,000 leaves, about 8 MB) no longer
// freezes the window while it is read (10^5 Dims froze it for 40 s). openFile returns
// at once, and the window shows it in seconds (Dim colours were Dims^2: 4.6 s more).
void TestDocumentWindow::largeProjectIsReadOffTheGuiThread()
{
    QTemporaryDir folder;
    const QString project = writeProject(folder.path());
    QVERIFY(!project.isEmpty());
    QString error;
    std::optional<ProjectFile> file = ProjectFile::read(project, &error);
    QVERIFY2(file, qPrintable(error));
    ConstraintSet set;
    for (int i = 0; i < 10000; ++i)
        QVERIFY(set.addRootDim(QStringLiteral("d%1").arg(i)).isEmpty());
    for (int i = 0; i < 100000; ++i)
        set.setLeaf(QStringLiteral("unused.leaf_%1").arg(i), {DimAssignment::named(QStringLiteral("d%1").arg(i % 10000)),
                                                            DimAssignment::makeStatic()});
    file->constraints = set;
    QVERIFY2(ProjectFile::write(project, *file, &error), qPrintable(error));
    QElapsedTimer timer;
    timer.start();
    QVERIFY2(ProjectFile::read(project, &error), qPrintable(error));
    const qint64 readMs = timer.elapsed();

    MainWindow window;
    window.show();
    QSignalSpy shown(&window, &MainWindow::captureShown);
    QSignalSpy failed(&window, &MainWindow::openFailed);
    timer.restart();
    QVERIFY(window.openFile(project));
    const qint64 openMs = timer.elapsed();
    qInfo("ProjectFile::read: %lld ms; openFile returned after %lld ms", readMs, openMs);
    QVERIFY2(openMs * 4 < readMs, qPrintable(QStringLiteral("openFile took %1 ms, reading the project %2 ms").arg(openMs).arg(readMs)));
    QVERIFY(QTest::qWaitFor([&] { return !shown.isEmpty() || !failed.isEmpty(); }, 60000));
    qInfo("shown after %lld ms", timer.elapsed());
    QVERIFY2(failed.isEmpty(), qPrintable(failed.isEmpty() ? QString() : failed.first().at(1).toString()));
    QCOMPARE(window.document()->constraints().dims().size(), 10000);
}

void TestDocumentWindow::openErrorsNameThePathOnce()
{
    const QString path = m_dir.filePath(QStringLiteral("short.safetensors"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("garbage");
    f.close();
    MainWindow window;
    window.show();
    QSignalSpy failed(&window, &MainWindow::openFailed);
    window.openFile(path);
    QTRY_COMPARE(failed.size(), 1);
    const QString text = window.banner()->text();
    QCOMPARE(text.count(QLatin1String("short.safetensors")), 1);
    QVERIFY2(text.startsWith(QStringLiteral("Cannot open ") + path + QStringLiteral(": ")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("8-byte")), qPrintable(text));
}

void TestDocumentWindow::helpListsShortcutsAndDocumentation()
{
    MainWindow window;
    ShortcutsDialog shortcuts(window.findChildren<QAction *>(), &window);
    QStringList rows;
    for (int r = 0; r < shortcuts.table()->rowCount(); ++r)
        rows << shortcuts.table()->item(r, 0)->text() + QStringLiteral(" = ") + shortcuts.table()->item(r, 1)->text();
    const QString all = rows.join(QLatin1Char('\n'));
    QVERIFY2(all.contains(QStringLiteral("Export on CPU = Ctrl+E")), qPrintable(all));
    QVERIFY2(all.contains(QStringLiteral("Reset Layout")) || all.contains(QStringLiteral("Dims = Ctrl+2")), qPrintable(all));
    QVERIFY2(all.contains(QStringLiteral("Open Capture = Ctrl+O")), qPrintable(all));

    DocumentationDialog docs(QStringLiteral(DIMSCOPE_SOURCE_DIR "/docs"), &window);
    QVERIFY(docs.pages()->count() >= 5);
    QVERIFY(docs.showPage(QStringLiteral("cli.md")));
    QVERIFY2(docs.browser()->toPlainText().contains(QLatin1String("dimscope-cli")), qPrintable(docs.browser()->toPlainText().left(200)));
    DocumentationDialog none(QString(), &window);
    QVERIFY(none.browser()->toPlainText().contains(QLatin1String("not installed")));
}

// Copy and Export as CSV… on the Dims and leaf details tables too (the result tables
// have them, tst_resulttables).
void TestDocumentWindow::dimsAndLeafTablesCopyAsText()
{
    MainWindow window;
    window.show();
    QVERIFY(openAndWait(window, demoCapture()));
    for (const char *name : {"dimsTable", "leafDetailsTable"}) {
        auto *view = window.findChild<QAbstractItemView *>(QLatin1String(name));
        QVERIFY(view);
        QCOMPARE(view->contextMenuPolicy(), Qt::ActionsContextMenu);
        QAction *copy = view->findChild<QAction *>(QLatin1String(name) + QStringLiteral("Copy"));
        QVERIFY2(copy, name);
        QVERIFY(view->findChild<QAction *>(QLatin1String(name) + QStringLiteral("ExportCsv")));
        QTRY_VERIFY(view->model()->rowCount() > 0);
        view->clearSelection();
        copy->trigger();
        const QStringList lines = QApplication::clipboard()->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), view->model()->rowCount() + 1); // the header, then every row
        QCOMPARE(lines.first().section(QLatin1Char('\t'), 0, 0), view->model()->headerData(0, Qt::Horizontal).toString());
    }
}

// Issue 11: the first statistic (which loads LibTorch) starts only once the new
// capture's tree is on the screen, not while it is being laid out and painted.
void TestDocumentWindow::statisticsWaitForTheTreesPaint()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy started(window.detailsPanel(), &LeafDetailsPanel::statisticsStarted);
    window.setUpdatesEnabled(false); // nothing paints: the tree never reaches the screen
    QVERIFY(openAndWait(window, demoCapture()));
    QTest::qWait(4 * LeafDetailsPanel::kDebounceMs);
    QCOMPARE(started.size(), 0);
    window.setUpdatesEnabled(true); // painted now
    QVERIFY(started.wait(5000));
}

namespace {

// A program of the export, exported as `name` of `file`, serving `calls`, its replay
// of every captured call: its own accepted, the others rejected as torch rejects a
// call of another phase, or by `guard` where one is given for that call.
ExportedProgram programServing(const QString &file, const QString &name, const QVector<int> &calls, int callCount,
                               const ConstraintSet &constraints, const QHash<int, QString> &guards = {})
{
    ExportedProgram p;
    p.result.ok = true;
    p.result.exported = true;
    p.result.output = file;
    p.result.program = name;
    p.calls = calls;
    p.constraints = constraints;
    p.description = QStringLiteral("every call");
    for (int c = 0; c < callCount; ++c) {
        CallVerification v;
        v.call = c;
        v.status = calls.contains(c) ? QStringLiteral("ok") : QStringLiteral("rejected");
        if (!calls.contains(c)) {
            v.guard = guards.value(c);
            v.message = v.guard.isEmpty() ? QStringLiteral("Ran into a kwarg keyword mismatch: Got the following keys "
                                                           "that are not present in the input: pixel_values")
                                          : QStringLiteral("Guard failed: ") + v.guard;
        }
        p.result.verification << v;
    }
    return p;
}

} // namespace

// A partial or multi-program result read as the user needs it (issue 28, problem 5):
// a call another program serves says "served by" that program, in the palette's
// colour; a call none serves says why in dimscope's words and offers Export a Program
// per Phase, which turns the fix loop on and exports again.
void TestDocumentWindow::partialResultSaysWhoServesEachCallAndWhatToDo()
{
    MainWindow window;
    window.show();
    QVERIFY(openAndWait(window, demoCapture()));
    ProjectDocument *doc = window.document();
    const int n = int(doc->capture().calls.size());
    QVERIFY(n >= 3);
    ExportResultView *view = window.exportResultView();
    QAbstractItemModelTester programsTester(view->programsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester verificationTester(view->verificationModel(),
                                                QAbstractItemModelTester::FailureReportingMode::QtTest);
    const QString archive = m_dir.filePath(QStringLiteral("demo.pt2"));
    QVector<int> rest;
    for (int c = 1; c < n; ++c)
        rest << c;

    // Two programs of one archive, every call served.
    PhasedExportOutcome both;
    both.callCount = n;
    both.programs = {programServing(archive, QStringLiteral("model"), rest, n, doc->constraints()),
                     programServing(archive, QStringLiteral("phase2"), {0}, n, doc->constraints())};
    doc->exportResults()->setOutcome(both, {});
    QCOMPARE(view->selectedProgram(), 0);
    const VerificationModel *rows = view->verificationModel();
    const QModelIndex served = rows->index(0, VerificationModel::StatusColumn);
    QCOMPARE(served.data().toString(), QStringLiteral("served by program phase2 of demo.pt2"));
    QVERIFY(!served.data(Qt::ForegroundRole).isValid()); // the palette's text colour: nothing failed
    QVERIFY(served.data(Qt::ToolTipRole).toString().contains(QLatin1String("kwarg keyword mismatch")));
    QVERIFY(!view->findChild<QWidget *>(QStringLiteral("unservedBox"))->isVisibleTo(view));
    view->selectProgram(1);
    QCOMPARE(rows->index(1, VerificationModel::StatusColumn).data().toString(),
             QStringLiteral("served by program model of demo.pt2"));

    // One program, call 0 rejected by a guard, exported without the fix loop.
    ExportOptions options = doc->exportOptions();
    options.fixLoop = false;
    doc->setExportOptions(options);
    const DimAssignment seq = doc->constraints().assignment(QStringLiteral("input_ids"), 1);
    QVERIFY(seq.isNamed());
    PhasedExportOutcome partial;
    partial.callCount = n;
    partial.unserved = {0};
    partial.programs = {programServing(archive, QStringLiteral("model"), rest, n, doc->constraints(),
                                       {{0, QStringLiteral("input_ids dim 1 <= 7")}})};
    doc->exportResults()->setOutcome(partial, {});
    const QString status = rows->index(0, VerificationModel::StatusColumn).data().toString();
    QCOMPARE(status, QStringLiteral("rejected"));
    const QString detail = rows->index(0, VerificationModel::DetailColumn).data().toString();
    QVERIFY2(detail.startsWith(QLatin1String("served by no program")), qPrintable(detail));
    auto *advice = view->findChild<QLabel *>(QStringLiteral("unservedAdvice"));
    QVERIFY(advice->isVisibleTo(view));
    QVERIFY2(advice->text().contains(QLatin1String("call 0: demo.pt2 needs input_ids dim 1 <= 7")), qPrintable(advice->text()));
    QVERIFY2(advice->text().contains(QStringLiteral("widen %1").arg(seq.dim)), qPrintable(advice->text()));
    auto *phases = view->findChild<QPushButton *>(QStringLiteral("exportPhasesButton"));
    QVERIFY(phases->isVisibleTo(view));
    // The one click: the fix loop on, saved with the document, and an export started
    // (it fails here: the worker's interpreter does not exist).
    doc->setModelRef(QStringLiteral("/nonexistent/model.py:Model"));
    window.exportController()->setOutputPath(m_dir.filePath(QStringLiteral("again.pt2")));
    QSignalSpy started(window.exportController(), &ExportController::exportStarted);
    phases->click();
    QVERIFY(doc->exportOptions().fixLoop);
    QCOMPARE(started.count(), 1);
}

// Apply fixes applies what the user ticked (issue 28, problem 6): a fix the page flags
// as breaking captured calls is unticked by default and says how many it breaks; the
// text under the list follows undo and redo, and Apply is offered again once undone.
void TestDocumentWindow::applyFixesLeavesBreakingOnesUntickedAndFollowsUndo()
{
    MainWindow window;
    window.show();
    QVERIFY(openAndWait(window, demoCapture()));
    ProjectDocument *doc = window.document();
    QVERIFY(doc->constraints().dims().size() >= 2);
    const QString pinned = doc->constraints().dims().at(0).name;
    const QString bounded = doc->constraints().dims().at(1).name;
    const QString breaking = pinned + QStringLiteral(" = 99999"); // no call has it
    const QString harmless = QStringLiteral("%1 = Dim('%1', max=100000)").arg(bounded);
    WorkerFailure failure = WorkerFailure::make(QStringLiteral("constraint_violation"), QStringLiteral("Constraints violated"));
    failure.fixes = {breaking, harmless};
    PhasedExportOutcome outcome;
    outcome.callCount = int(doc->capture().calls.size());
    outcome.firstAttempt = ExportResult::fromFailure(failure);
    doc->exportResults()->setOutcome(outcome, {});

    ExportResultView *view = window.exportResultView();
    auto *fixes = view->findChild<QListWidget *>(QStringLiteral("fixesView"));
    QCOMPARE(fixes->count(), 2);
    QCOMPARE(fixes->item(0)->checkState(), Qt::Unchecked);
    QVERIFY2(QRegularExpression(QStringLiteral("⚠ breaks [1-9][0-9]* captured calls: ")).match(fixes->item(0)->text()).hasMatch(),
             qPrintable(fixes->item(0)->text()));
    QCOMPARE(fixes->item(1)->checkState(), Qt::Checked);
    auto *apply = view->findChild<QPushButton *>(QStringLiteral("applyFixesButton"));
    QVERIFY(apply->isEnabled());
    QCOMPARE(apply->text(), QStringLiteral("Apply 1 of 2 Fixes"));

    const ConstraintSet before = doc->constraints();
    apply->click();
    QVERIFY(doc->constraints() != before);
    QVERIFY(doc->constraints().dim(pinned)); // the breaking fix was not applied
    QCOMPARE(doc->constraints().dim(bounded)->max, std::optional<qint64>(100000));
    auto *outcomeText = view->findChild<QLabel *>(QStringLiteral("fixOutcome"));
    QVERIFY(outcomeText->isVisibleTo(view));
    QVERIFY2(outcomeText->text().startsWith(QStringLiteral("Applied: %1.").arg(harmless)), qPrintable(outcomeText->text()));
    QVERIFY(!apply->isEnabled()); // not twice

    doc->undoStack()->undo();
    QVERIFY(doc->constraints() == before);
    QVERIFY2(outcomeText->text().startsWith(QLatin1String("Undone: ")), qPrintable(outcomeText->text()));
    QVERIFY(apply->isEnabled());
    doc->undoStack()->redo();
    QVERIFY2(outcomeText->text().startsWith(QLatin1String("Applied: ")), qPrintable(outcomeText->text()));

    // Ticking the breaking one applies it too.
    doc->undoStack()->undo();
    fixes->item(0)->setCheckState(Qt::Checked);
    QCOMPARE(apply->text(), QStringLiteral("Apply Fixes"));
    apply->click();
    QVERIFY(!doc->constraints().dim(pinned)); // made static
}

DIMSCOPE_TEST_MAIN(TestDocumentWindow)
#include "tst_documentwindow.moc"
