// The 33,000-leaf benchmark capture in the GUI: opening it keeps the window
// responsive (reading, the aligned tree and inference run off the GUI thread with
// progress), and the tree stays fluid when expanding, scrolling and filtering.
//
// Responsiveness is measured the way a user feels it: a 10 ms timer on the GUI thread
// and the longest gap between its ticks while the work runs. The bounds are generous
// (the CI machine is small and shared); the load bound is checked against the time the
// same open + inference takes when run synchronously, which is what the gap would be
// if the load ran on the GUI thread.
#include "benchcapture.h"
#include "captureloader.h"
#include "dimspanel.h"
#include "inputsview.h"
#include "leafdetailspanel.h"
#include "mainwindow.h"
#include "models/dimsmodel.h"
#include "models/inputsfilterproxy.h"
#include "models/inputsmodel.h"
#include "projectdocument.h"

#include "capture/capturereader.h"
#include "models/loadedcapture.h"
#include "shapes/constraintset.h"
#include "shapes/constraintvalidator.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QProgressBar>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>
#include <QUndoStack>

#include <memory>

#include <ctime>

using namespace dimscope;

namespace {

// CPU time of the calling thread: unlike wall time it does not grow while the thread
// waits for a core on a loaded machine, nor while it sleeps in the event loop.
qint64 threadCpuNs()
{
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return qint64(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The longest time the GUI thread went without serving a 10 ms timer, as wall time
// (what a user sees) and as the GUI thread's CPU time over the same gap (the work it
// did meanwhile; the machine's load does not inflate it).
class StallMeter : public QObject
{
public:
    StallMeter()
    {
        m_timer.setInterval(10);
        m_timer.setTimerType(Qt::PreciseTimer);
        connect(&m_timer, &QTimer::timeout, this, &StallMeter::tick);
    }
    void start()
    {
        m_longestNs = m_longestCpuNs = 0;
        m_ticks = 0;
        m_long.clear();
        m_clock.start();
        m_lastNs = 0;
        m_lastCpuNs = threadCpuNs();
        m_timer.start();
    }
    // Stops after one more tick, so that a stall right before stop() is counted.
    void stop()
    {
        QTest::qWait(30);
        m_timer.stop();
        tick();
    }
    double longestMs() const { return double(m_longestNs) / 1e6; }
    double longestCpuMs() const { return double(m_longestCpuNs) / 1e6; }
    double elapsedMs() const { return double(m_clock.nsecsElapsed()) / 1e6; }
    int ticks() const { return m_ticks; }
    // "at+wall/cpu" of every gap over 40 ms, for the log.
    QString longGaps() const { return m_long.join(QLatin1Char(' ')); }

private:
    void tick()
    {
        const qint64 now = m_clock.nsecsElapsed(), cpu = threadCpuNs();
        const qint64 gap = now - m_lastNs, cpuGap = cpu - m_lastCpuNs;
        if (gap > 40000000)
            m_long.append(QStringLiteral("%1+%2/%3").arg(m_lastNs / 1000000).arg(gap / 1000000).arg(cpuGap / 1000000));
        m_longestNs = qMax(m_longestNs, gap);
        m_longestCpuNs = qMax(m_longestCpuNs, cpuGap);
        m_lastNs = now;
        m_lastCpuNs = cpu;
        ++m_ticks;
    }

    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_lastNs = 0, m_lastCpuNs = 0;
    qint64 m_longestNs = 0, m_longestCpuNs = 0;
    int m_ticks = 0;
    QStringList m_long;
};

// Leaves (rows without children) under `parent` in `model`, with their key paths.
QStringList leafPaths(const QAbstractItemModel *model, const QModelIndex &parent = {})
{
    QStringList paths;
    for (int r = 0; r < model->rowCount(parent); ++r) {
        const QModelIndex i = model->index(r, 0, parent);
        if (model->rowCount(i) == 0)
            paths.append(i.data(InputsModel::KeyPathRole).toString());
        else
            paths += leafPaths(model, i);
    }
    return paths;
}

QModelIndex childNamed(const QAbstractItemModel *model, const QModelIndex &parent, const QString &name)
{
    for (int r = 0; r < model->rowCount(parent); ++r)
        if (model->index(r, 0, parent).data().toString() == name)
            return model->index(r, 0, parent);
    return {};
}

// Generous bounds: the CI machine is small and shared.
constexpr double kLoadStallBoundMs = 250;
constexpr double kViewStallBoundMs = 250;
// A gap this long reads as a frozen window whatever the cause (work or waiting).
constexpr double kFrozenMs = 1000;

} // namespace

class TestLargeCapture : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void openKeepsGuiResponsive();
    void treeShowsArgumentsAndLayers();
    void dimsPanelShowsInferredDims();
    void expandAndScrollStayFluid();
    void filterFindsKeyPathsWithoutStalling();
    void selectingLeavesStaysFluid();
    void modelsPassTheTester();

private:
    QTemporaryDir m_dir;
    QString m_capture;
    std::unique_ptr<MainWindow> m_window;
};

void TestLargeCapture::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.path());
    QCoreApplication::setOrganizationName(QStringLiteral("dimscope-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_largecapture"));
    QSettings().clear();

    m_capture = m_dir.filePath(QStringLiteral("bench.safetensors"));
    QElapsedTimer timer;
    timer.start();
    const test::BenchCaptureShape shape = test::BenchCaptureShape::quick();
    QCOMPARE(test::writeBenchCapture(m_capture, shape), shape.leafCount());
    QVERIFY(shape.leafCount() > 33000);
    qInfo("generated the %lld-leaf capture in %lld ms", shape.leafCount(), timer.elapsed());

    m_window = std::make_unique<MainWindow>();
    m_window->resize(1280, 800);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
}

void TestLargeCapture::cleanupTestCase()
{
    if (m_window)
        m_window->document()->undoStack()->setClean(); // no "save changes?" on close
    m_window.reset();
}

// Prints the stall and checks it: the GUI thread's own work between two ticks under
// `cpuBoundMs`, and no gap a user would take for a frozen window.
void checkStall(const char *what, const StallMeter &meter, double cpuBoundMs)
{
    qInfo("%s: longest GUI-thread stall %.1f ms wall, %.1f ms GUI-thread CPU (bound %.0f ms CPU, %.0f ms wall)%s%s", what,
          meter.longestMs(), meter.longestCpuMs(), cpuBoundMs, kFrozenMs, meter.longGaps().isEmpty() ? "" : "; gaps over 40 ms at+wall/cpu: ",
          qPrintable(meter.longGaps()));
    QVERIFY2(meter.longestCpuMs() < cpuBoundMs,
             qPrintable(QStringLiteral("%1: the GUI thread worked %2 ms without serving events").arg(what).arg(meter.longestCpuMs())));
    QVERIFY2(meter.longestMs() < kFrozenMs,
             qPrintable(QStringLiteral("%1: the GUI thread did not serve events for %2 ms").arg(what).arg(meter.longestMs())));
}

void TestLargeCapture::openKeepsGuiResponsive()
{
    // What the GUI thread would be blocked for if it did the work itself: reading the
    // capture, building the aligned tree and running inference, plus validating the
    // inferred constraints against every call.
    QElapsedTimer timer;
    timer.start();
    const qint64 cpu0 = threadCpuNs();
    QString error;
    std::optional<Capture> capture = CaptureReader::open(m_capture, &error);
    QVERIFY2(capture, qPrintable(error));
    const LoadedCapturePtr sync = LoadedCapture::build(*capture);
    const ValidationReport report = ConstraintValidator(sync->inference.table).validate(sync->inference.constraints);
    const double syncMs = double(timer.nsecsElapsed()) / 1e6;
    const double syncCpuMs = double(threadCpuNs() - cpu0) / 1e6;
    QCOMPARE(sync->tree.callCount(), 256);
    qInfo("synchronous open + tree + inference + validation: %.1f ms wall, %.1f ms CPU (%d violations)", syncMs, syncCpuMs,
          int(report.violations.size()));

    auto *loader = m_window->findChild<CaptureLoader *>();
    QVERIFY(loader);
    QSignalSpy progress(loader, &CaptureLoader::progress);
    QSignalSpy shown(m_window.get(), &MainWindow::captureShown);
    auto *bar = m_window->findChild<QProgressBar *>();
    QVERIFY(bar);
    int barMax = -1;
    QMetaObject::Connection barWatch = connect(bar, &QProgressBar::valueChanged, this, [&](int value) {
        if (bar->maximum() > 0 && value == bar->maximum())
            barMax = value;
    });

    // Opening ends when the first dynamic leaf's per-call statistics are shown too.
    QSignalSpy statistics(m_window->detailsPanel(), &LeafDetailsPanel::statisticsFinished);
    StallMeter meter;
    meter.start();
    QVERIFY(m_window->openFile(m_capture));
    QVERIFY(shown.wait(120000));
    const double loadMs = meter.elapsedMs();
    QVERIFY(!statistics.isEmpty() || statistics.wait(120000));
    const double statisticsMs = meter.elapsedMs();
    meter.stop();
    disconnect(barWatch);
    qInfo("load through MainWindow::openFile: %.1f ms to the tree, %.1f ms to the leaf statistics (%d ticks, %d "
          "progress reports)",
          loadMs, statisticsMs, meter.ticks(), int(progress.size()));

    // Loading on the GUI thread would stall it for the whole synchronous load; what
    // is left there (showing the result) must be a small part of it.
    checkStall("open", meter, qMin(kLoadStallBoundMs, syncCpuMs / 2));
    if (syncCpuMs / 2 < kLoadStallBoundMs)
        qInfo("the synchronous load (%.0f ms CPU) is below twice the %.0f ms absolute bound on this machine: the bound "
              "used is half the synchronous load",
              syncCpuMs, kLoadStallBoundMs);

    QVERIFY(!progress.isEmpty());
    // Progress reaches its end: the last report is done == total, and the bar got there.
    const QList<QVariant> last = progress.last();
    QVERIFY(last.at(2).toInt() > 0);
    QCOMPARE(last.at(1).toInt(), last.at(2).toInt());
    QVERIFY(barMax > 0);
    QVERIFY(!bar->isVisible()); // hidden once the capture shows
}

void TestLargeCapture::treeShowsArgumentsAndLayers()
{
    QVERIFY(m_window->loaded());
    const QAbstractItemModel *model = m_window->inputsView()->model();
    QStringList top;
    for (int r = 0; r < model->rowCount(); ++r)
        top.append(model->index(r, 0).data().toString());
    QCOMPARE(top, (QStringList{QStringLiteral("input_ids"), QStringLiteral("attention_mask"), QStringLiteral("past_key_values")}));
    const QModelIndex cache = childNamed(model, {}, QStringLiteral("past_key_values"));
    const QModelIndex keys = childNamed(model, cache, QStringLiteral("key_cache"));
    const QModelIndex values = childNamed(model, cache, QStringLiteral("value_cache"));
    QVERIFY(keys.isValid() && values.isValid());
    QCOMPARE(model->rowCount(keys), 64);
    QCOMPARE(model->rowCount(values), 64);
    const QModelIndex layer63 = model->index(63, 0, keys);
    QCOMPARE(layer63.data().toString(), QStringLiteral("key_cache[63]"));
    QCOMPARE(layer63.data(InputsModel::KeyPathRole).toString(), QStringLiteral("past_key_values.key_cache[63]"));
    // Shape over calls: batch 2, 1 head, the cache growing from 16 to 271, head dim 1.
    QCOMPARE(layer63.siblingAtColumn(InputsModel::ShapeColumn).data().toString(), QStringLiteral("2 x 1 x [16..271] x 1"));
    QCOMPARE(leafPaths(model).size(), 2 + 2 * 64);
}

void TestLargeCapture::dimsPanelShowsInferredDims()
{
    const ProjectDocument *doc = m_window->document();
    const DimsModel *dims = m_window->dimsPanel()->model();
    QStringList inferred;
    for (const DimDecl &d : doc->inference().constraints.dims())
        inferred.append(d.name);
    QVERIFY(!inferred.isEmpty());
    QStringList shown;
    for (int r = 0; r < dims->rowCount(); ++r)
        shown.append(dims->index(r, DimsModel::NameColumn).data().toString());
    QCOMPARE(shown, inferred);
    // The cache length Dim is used by all 128 cache tensors and saw 16..271.
    const QModelIndex key63 = m_window->inputsView()->model()->indexForPath(QStringLiteral("past_key_values.key_cache[63]"));
    const QStringList labels = key63.data(InputsModel::DimLabelsRole).toStringList();
    QCOMPARE(labels.size(), 4);
    const QString cacheDim = labels.at(2);
    const int row = dims->rowOf(cacheDim);
    QVERIFY2(row >= 0, qPrintable(cacheDim));
    QVERIFY(dims->index(row, DimsModel::UsesColumn).data().toInt() >= 128);
    QVERIFY(dims->index(row, DimsModel::ObservedColumn).data().toString().contains(QStringLiteral("16")));
    QVERIFY(dims->index(row, DimsModel::ObservedColumn).data().toString().contains(QStringLiteral("271")));
    qInfo("inferred Dims: %s", qPrintable(inferred.join(QStringLiteral(", "))));
}

void TestLargeCapture::expandAndScrollStayFluid()
{
    InputsView *view = m_window->inputsView();
    QTreeView *tree = view->tree();
    StallMeter meter;

    view->collapseAll();
    QTest::qWait(50);
    meter.start();
    view->expandAll();
    tree->viewport()->repaint();
    meter.stop();
    checkStall("expand all", meter, kViewStallBoundMs);

    meter.start();
    for (int step = 0; step < 20; ++step) {
        tree->verticalScrollBar()->setValue(tree->verticalScrollBar()->maximum() * step / 19);
        tree->viewport()->repaint();
        QCoreApplication::processEvents();
    }
    tree->scrollToBottom();
    tree->viewport()->repaint();
    meter.stop();
    checkStall("scroll to the bottom", meter, kViewStallBoundMs);
    QCOMPARE(tree->verticalScrollBar()->value(), tree->verticalScrollBar()->maximum());

    meter.start();
    view->collapseAll();
    tree->viewport()->repaint();
    meter.stop();
    checkStall("collapse all", meter, kViewStallBoundMs);
}

void TestLargeCapture::filterFindsKeyPathsWithoutStalling()
{
    InputsView *view = m_window->inputsView();
    const QAbstractItemModel *proxy = view->proxy();
    const int allLeaves = leafPaths(proxy).size();
    QCOMPARE(allLeaves, 130);
    StallMeter meter;

    meter.start();
    view->filterEdit()->setText(QStringLiteral("key_cache[63]"));
    QTRY_COMPARE_WITH_TIMEOUT(leafPaths(proxy), QStringList{QStringLiteral("past_key_values.key_cache[63]")}, 5000);
    view->tree()->viewport()->repaint();
    meter.stop();
    checkStall("filter 'key_cache[63]'", meter, kViewStallBoundMs);

    // A prefix: layers 6 and 60..63 of the key cache only.
    meter.start();
    view->filterEdit()->setText(QStringLiteral("KEY_cache[6"));
    QTRY_COMPARE_WITH_TIMEOUT(leafPaths(proxy).size(), 5, 5000);
    view->tree()->viewport()->repaint();
    meter.stop();
    checkStall("filter 'KEY_cache[6'", meter, kViewStallBoundMs);
    QStringList expected;
    for (int layer : {6, 60, 61, 62, 63})
        expected.append(QStringLiteral("past_key_values.key_cache[%1]").arg(layer));
    QCOMPARE(leafPaths(proxy), expected);
    // The filtered tree is expanded down to the matches.
    const QModelIndex match = view->proxy()->mapFromSource(
        view->model()->indexForPath(QStringLiteral("past_key_values.key_cache[63]")));
    QVERIFY(match.isValid());
    QVERIFY(view->tree()->isExpanded(match.parent()));

    meter.start();
    view->filterEdit()->clear();
    QTRY_COMPARE_WITH_TIMEOUT(leafPaths(proxy).size(), allLeaves, 5000);
    view->tree()->viewport()->repaint();
    meter.stop();
    checkStall("clear the filter", meter, kViewStallBoundMs);
}

void TestLargeCapture::selectingLeavesStaysFluid()
{
    // Each selection fills the details table with the leaf's 256 calls, then its
    // statistics arrive from the thread pool.
    InputsView *view = m_window->inputsView();
    QSignalSpy statistics(m_window->detailsPanel(), &LeafDetailsPanel::statisticsFinished);
    StallMeter meter;
    meter.start();
    for (const char *path : {"input_ids", "attention_mask", "past_key_values.key_cache[0]", "past_key_values.value_cache[63]"}) {
        const QModelIndex index = view->proxy()->mapFromSource(view->model()->indexForPath(QLatin1String(path)));
        QVERIFY2(index.isValid(), path);
        statistics.clear();
        view->tree()->setCurrentIndex(index);
        QVERIFY(statistics.wait(60000));
        QCOMPARE(view->currentNode(), m_window->loaded()->tree.nodeForPath(QLatin1String(path)));
    }
    meter.stop();
    checkStall("select four leaves and show their statistics", meter, kViewStallBoundMs);
}

void TestLargeCapture::modelsPassTheTester()
{
    // Reopened with the testers attached before the models are populated again.
    QAbstractItemModelTester tester(m_window->inputsView()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(m_window->inputsView()->proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester dimsTester(m_window->dimsPanel()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy shown(m_window.get(), &MainWindow::captureShown);
    QVERIFY(m_window->openFile(m_capture));
    QVERIFY(shown.wait(120000));
    m_window->inputsView()->filterEdit()->setText(QStringLiteral("value_cache[1"));
    QTRY_COMPARE_WITH_TIMEOUT(leafPaths(m_window->inputsView()->proxy()).size(), 11, 5000);
    m_window->inputsView()->filterEdit()->clear();
    QTRY_COMPARE_WITH_TIMEOUT(leafPaths(m_window->inputsView()->proxy()).size(), 130, 5000);
}

QTEST_MAIN(TestLargeCapture)
#include "tst_largecapture.moc"
