// SPDX-License-Identifier: GPL-3.0-or-later
// The window fits the screen (issue 28, problems 1 and 3), run on a screen of 1093x614
// logical pixels (a 1366x768 laptop at 125 %): the minimum size with every dock shown
// fits it; no label widens the window (long paths and names elide, the full text in
// the tooltip); a restored geometry wider than the screen is clamped to it; the Export
// log stays at column 0.
#include "deterministictestmain.h"
#include "explanationspanel.h"
#include "exportpanel.h"
#include "kvcapture.h"
#include "models/explanationsmodel.h"
#include "mainwindow.h"
#include "projectcontroller.h"
#include "document/documentopener.h"
#include "document/exportresults.h"
#include "document/projectdocument.h"
#include "export/phasedexportoutcome.h"
#include "export/programreadback.h"
#include "pt2/pt2reader.h"
#include "throwawaysettings.h"

#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QScreen>
#include <QStyleFactory>
#include <QTreeView>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>

using namespace dimscope;

namespace {

const QSize kLaptop(1093, 614); // 1366x768 at 125 %, in logical pixels

QString sizeText(const QSize &s) { return QStringLiteral("%1x%2").arg(s.width()).arg(s.height()); }

QString samplePt2() { return QStringLiteral(DIMSCOPE_SOURCE_DIR "/tests/fixtures/torch-2.6/llm-like-cache.pt2"); }

// Shows a capture with every dock open (as View > Panels can).
bool showWithEveryDock(MainWindow &window)
{
    window.show();
    window.showCapture(test::kvCapture(3, 2), QStringLiteral("in-memory"));
    if (!QTest::qWaitFor([&] { return window.document()->hasCapture(); }, 20000))
        return false;
    for (QDockWidget *dock : window.findChildren<QDockWidget *>())
        dock->show();
    QTest::qWait(50);
    return true;
}

// A decision at a line of a library file deep in site-packages, as torch reports one.
QVector<ShapeExplanation> decisionInLibrary(const QString &file)
{
    ShapeExplanation e;
    e.kind = QStringLiteral("specialized");
    e.expression = QStringLiteral("seq_len == 4");
    e.dims = {QStringLiteral("seq_len")};
    e.value = 4;
    e.location.file = file;
    e.location.line = 1234;
    e.location.function = QStringLiteral("forward");
    e.stack = {StackFrame{e.location, true}};
    return {e};
}

// The demo's fix-loop export as the window shows it: the first attempt's shape decision
// (the Why dock), then one program serving the 6 calls with torch's fix applied, read
// back from a real .pt2 (the program view's inputs and ranges), its verification rows.
PhasedExportOutcome fixLoopExport(const QString &pt2, const ConstraintSet &constraints)
{
    PhasedExportOutcome outcome;
    outcome.callCount = 6;
    outcome.firstAttempt = ExportResult::fromFailure(
        WorkerFailure::make(QStringLiteral("constraint_violation"), QStringLiteral("Constraints violated")));
    outcome.firstAttempt.failure.explanations = decisionInLibrary(QStringLiteral("/venv/lib/python3.11/site-packages/m.py"));
    ExportedProgram program;
    program.result.exported = program.result.ok = true;
    program.result.output = pt2;
    program.calls = {0, 1, 2, 3, 4, 5};
    program.description = QStringLiteral("every call");
    program.constraints = constraints;
    program.appliedFixes = {QStringLiteral("heads = 2")};
    for (int call = 0; call < 6; ++call)
        program.result.verification << CallVerification{call, QStringLiteral("ok"), {}, {}, {}};
    outcome.programs = {program};
    return outcome;
}

} // namespace

class TestWindowFit : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init() { QSettings().clear(); }
    void exportLogStaysAtColumnZero();
    void everyDockFitsALaptop();
    void everyDockFitsALaptopAfterAnExport();
    void longPathsDoNotWidenTheWindow();
    void restoredGeometryIsClampedToTheScreen();
    void firstStartLeavesRoomForTheFrame();

private:
    QTemporaryDir m_dir;
};

void TestWindowFit::initTestCase()
{
    QVERIFY(test::useThrowawaySettings(m_dir, QStringLiteral("tst_windowfit")));
    qputenv("DIMSCOPE_PYTHON", QByteArrayLiteral("/nonexistent/python3"));
}

// Lines longer than the log is wide, appended while the Export dock is closed, then the
// dock shown: the start of every line is in view (the log wraps; it does not scroll
// sideways to the end of the last line when shown).
void TestWindowFit::exportLogStaysAtColumnZero()
{
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    window.showCapture(test::kvCapture(3, 2), QStringLiteral("in-memory"));
    QTRY_VERIFY(window.document()->hasCapture());
    ExportPanel *panel = window.exportPanel();
    auto *exportDock = window.findChild<QDockWidget *>(QStringLiteral("exportDock"));
    exportDock->hide();
    QTRY_VERIFY(!panel->logView()->isVisible());
    const QString longPath = QStringLiteral("/home/user/projects/llava/exports/") + QString(300, QLatin1Char('x'))
                             + QStringLiteral("/llama.phase2.pt2");
    panel->started(QStringLiteral("Exporting"));
    for (int i = 0; i < 5; ++i) {
        panel->appendLog(QStringLiteral("stdout"), QStringLiteral("Saving %1 (%2 of 6)").arg(longPath).arg(i));
        panel->setProgress(QStringLiteral("verify"), QStringLiteral("call %1 of 6 on ").arg(i) + longPath, 0.5);
    }
    panel->finished(true, QStringLiteral("Exported 2 programs to ") + longPath);
    exportDock->show();
    exportDock->raise();
    QTRY_VERIFY(panel->logView()->isVisible());
    QTest::qWait(50);
    QCOMPARE(panel->logView()->horizontalScrollBar()->value(), 0);
    // Also when lines arrive while it is in view.
    panel->appendLog(QStringLiteral("stdout"), QStringLiteral("Verified ") + longPath);
    QTest::qWait(50);
    QCOMPARE(panel->logView()->horizontalScrollBar()->value(), 0);
}

// With every dock shown, the window fits the laptop's screen.
void TestWindowFit::everyDockFitsALaptop()
{
    MainWindow window;
    QVERIFY(showWithEveryDock(window));
    const QSize minimum = window.minimumSizeHint().expandedTo(window.minimumSize());
    QVERIFY2(minimum.width() <= kLaptop.width() && minimum.height() <= kLaptop.height(), qPrintable(sizeText(minimum)));
}

// After an export the Exported Program page shows its programs table, the program's
// inputs and ranges and the verification, and the Why dock the first attempt's
// decision: the window with every dock still fits the laptop (it needed 676 px: the
// tables' default minimum of 70 px each stacked up).
void TestWindowFit::everyDockFitsALaptopAfterAnExport()
{
    MainWindow window;
    QVERIFY(showWithEveryDock(window));
    const PhasedExportOutcome outcome = fixLoopExport(samplePt2(), window.document()->constraints());
    ProgramReadBack readBack; // the program's interface, no Dims to map it to (a capture of another model)
    readBack.program = Pt2Reader::open(samplePt2(), &readBack.error);
    QVERIFY2(readBack.program, qPrintable(readBack.error));
    window.document()->exportResults()->setOutcome(outcome, {readBack});
    QTRY_VERIFY(window.explanationsPanel()->isVisible());
    for (QDockWidget *dock : window.findChildren<QDockWidget *>())
        dock->show();
    QTest::qWait(50);
    const QSize minimum = window.minimumSizeHint().expandedTo(window.minimumSize());
    QVERIFY2(minimum.width() <= kLaptop.width() && minimum.height() <= kLaptop.height(), qPrintable(sizeText(minimum)));
}

// A program read from a folder with a long path, and a Why decision at a line deep in
// site-packages selected: the window's minimum width does not grow; the long texts are
// elided, whole in their tooltips.
void TestWindowFit::longPathsDoNotWidenTheWindow()
{
    MainWindow window;
    QVERIFY(showWithEveryDock(window));
    const int before = window.minimumSizeHint().expandedTo(window.minimumSize()).width();
    const QString library = QStringLiteral("/home/user/.local/share/virtualenvs/llava-experiments-3f9a2c/lib/python3.11/"
                                           "site-packages/transformers/models/llava_next_video/modeling_llava_next_video.py");
    PhasedExportOutcome outcome;
    outcome.firstAttempt = ExportResult::fromFailure(
        WorkerFailure::make(QStringLiteral("constraint_violation"), QStringLiteral("Constraints violated")));
    outcome.firstAttempt.failure.explanations = decisionInLibrary(library);
    window.document()->exportResults()->setOutcome(outcome, {});
    ExplanationsPanel *why = window.explanationsPanel();
    QTRY_VERIFY(why->isVisible());
    why->view()->setCurrentIndex(why->model()->index(0, 0));
    QTRY_COMPARE(why->shownFile(), library);
    QTest::qWait(50);
    const QSize afterWhy = window.minimumSizeHint().expandedTo(window.minimumSize());
    QVERIFY2(afterWhy.width() <= before, qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(afterWhy.width())));
    auto *title = why->findChild<QLabel *>(QStringLiteral("explanationsSourceTitle"));
    QVERIFY(title->toolTip().contains(QDir::toNativeSeparators(library) + QStringLiteral(":1234")));

    // A .pt2 from a deep folder: its path in the status bar and the program view.
    QTemporaryDir dir;
    const QString deep = dir.filePath(QStringLiteral("exports-of-the-llava-next-video-experiment-with-a-long-name/") + QString(120, QLatin1Char('d')));
    QVERIFY(QDir().mkpath(deep));
    const QString program = deep + QStringLiteral("/llava_next_video_for_conditional_generation.phase2.pt2");
    QVERIFY(QFile::copy(samplePt2(), program));
    QSignalSpy opened(window.projectController()->opener(), &DocumentOpener::opened);
    QVERIFY(window.openFile(program));
    QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty(), 20000);
    for (QDockWidget *dock : window.findChildren<QDockWidget *>())
        dock->show();
    QTest::qWait(50);
    const QSize afterProgram = window.minimumSizeHint().expandedTo(window.minimumSize());
    QVERIFY2(afterProgram.width() <= std::max(before, kLaptop.width()) && afterProgram.height() <= kLaptop.height(),
             qPrintable(sizeText(afterProgram)));
    QVERIFY(window.width() <= window.screen()->availableGeometry().width());
}

// A layout saved on a larger screen (1666 px wide) opens on the laptop within its screen.
void TestWindowFit::restoredGeometryIsClampedToTheScreen()
{
    {
        MainWindow wide;
        wide.show();
        wide.setGeometry(40, 30, 1666, 1000);
        QTest::qWait(20);
        wide.close(); // saves the layout
    }
    MainWindow window;
    window.show();
    QTest::qWait(20);
    const QRect screen = window.screen()->availableGeometry();
    QVERIFY2(screen.contains(window.frameGeometry()),
             qPrintable(QStringLiteral("%1,%2 %3 on %4").arg(window.frameGeometry().x()).arg(window.frameGeometry().y())
                            .arg(sizeText(window.frameGeometry().size()), sizeText(screen.size()))));
}

// The first start (no saved layout) on a screen smaller than its 1280x800: the window
// manager frames the window only once shown (this platform, as X11 before mapping,
// reports no frame), so the window leaves room for a title bar and borders within the
// available area; it was as tall as the screen, and openbox's title bar put its bottom
// 25 px below it.
void TestWindowFit::firstStartLeavesRoomForTheFrame()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QRect screen = window.screen()->availableGeometry();
    const QMargins gnomeFrame(1, 37, 1, 1); // a title bar as tall as GNOME's, the tallest common one
    const QRect framed = window.geometry().marginsAdded(gnomeFrame);
    QVERIFY2(framed.height() <= screen.height() && framed.width() <= screen.width(),
             qPrintable(QStringLiteral("%1 with a frame on %2").arg(sizeText(framed.size()), sizeText(screen.size()))));
}

// The laptop's screen: the offscreen platform with one 1093x614 screen.
int main(int argc, char *argv[])
{
    QTemporaryDir screenDir;
    const QString config = screenDir.filePath(QStringLiteral("screen.json"));
    QFile f(config);
    if (!f.open(QIODevice::WriteOnly))
        return 2;
    f.write(R"({"windowFrameMargins": false, "screens": [{"name": "laptop", "x": 0, "y": 0, "width": 1093, "height": 614,
                "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})");
    f.close();
    qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.toUtf8());
    dimscope::test::DeterministicEnvironment::prepareProcess();
    QApplication app(argc, argv);
    app.setAttribute(Qt::AA_Use96Dpi, true);
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    dimscope::test::DeterministicEnvironment environment;
    TestWindowFit tc;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&tc, argc, argv);
}
#include "tst_windowfit.moc"
