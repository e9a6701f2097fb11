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

using namespace dimscope;

namespace {

// The longest time the GUI thread went without serving a 10 ms timer.
class StallMeter : public QObject
{
public:
    StallMeter()
    {
        m_timer.setInterval(10);
        m_timer.setTimerType(Qt::PreciseTimer);
        connect(&m_timer, &QTimer::timeout, this, [this] {
            const qint64 now = m_clock.nsecsElapsed();
            m_longestNs = qMax(m_longestNs, now - m_lastNs);
            m_lastNs = now;
            ++m_ticks;
        });
    }
    void start()
    {
        m_longestNs = 0;
        m_ticks = 0;
        m_clock.start();
        m_lastNs = 0;
        m_timer.start();
    }
    // Stops after one more tick, so that a stall right before stop() is counted.
    void stop()
    {
        QTest::qWait(30);
        m_timer.stop();
        m_longestNs = qMax(m_longestNs, m_clock.nsecsElapsed() - m_lastNs);
    }
    double longestMs() const { return double(m_longestNs) / 1e6; }
    double elapsedMs() const { return double(m_clock.nsecsElapsed()) / 1e6; }
    int ticks() const { return m_ticks; }

private:
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_lastNs = 0;
    qint64 m_longestNs = 0;
    int m_ticks = 0;
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
    void modelsPassTheTester();

private:
    // Generous, but far below a synchronous load of this capture (checked below).
    static constexpr double kLoadStallBoundMs = 250;
    static constexpr double kViewStallBoundMs = 250;

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

void TestLargeCapture::openKeepsGuiResponsive()
{
    // What the GUI thread would be blocked for if it did the work itself: reading the
    // capture, building the aligned tree and running inference, plus validating the
    // inferred constraints against every call.
    QElapsedTimer timer;
    timer.start();
    QString error;
    std::optional<Capture> capture = CaptureReader::open(m_capture, &error);
    QVERIFY2(capture, qPrintable(error));
    const LoadedCapturePtr sync = LoadedCapture::build(*capture);
    const ValidationReport report = ConstraintValidator(sync->inference.table).validate(sync->inference.constraints);
    const double syncMs = double(timer.nsecsElapsed()) / 1e6;
    QCOMPARE(sync->tree.callCount(), 256);
    qInfo("synchronous open + tree + inference + validation: %.1f ms (%d violations)", syncMs, int(report.violations.size()));

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

    StallMeter meter;
    meter.start();
    QVERIFY(m_window->openFile(m_capture));
    QVERIFY(shown.wait(120000));
    const double loadMs = meter.elapsedMs();
    meter.stop();
    disconnect(barWatch);
    qInfo("load through MainWindow::openFile: %.1f ms; longest GUI-thread stall %.1f ms (%d ticks); %d progress reports",
          loadMs, meter.longestMs(), meter.ticks(), int(progress.size()));

    QVERIFY(!progress.isEmpty());
    // Progress reaches its end: the last report is done == total, and the bar got there.
    const QList<QVariant> last = progress.last();
    QVERIFY(last.at(2).toInt() > 0);
    QCOMPARE(last.at(1).toInt(), last.at(2).toInt());
    QVERIFY(barMax > 0);
    QVERIFY(!bar->isVisible()); // hidden once the capture shows

    QVERIFY2(meter.longestMs() < kLoadStallBoundMs,
             qPrintable(QStringLiteral("the GUI thread stalled %1 ms while loading").arg(meter.longestMs())));
    // The bound means something only when loading on the GUI thread would break it.
    if (syncMs > 2 * kLoadStallBoundMs)
        qInfo("a synchronous load (%.0f ms) would exceed the stall bound (%.0f ms) %.1fx", syncMs, kLoadStallBoundMs,
              syncMs / kLoadStallBoundMs);
    else
        qWarning("the synchronous load took only %.0f ms, not well above the %.0f ms stall bound: on this machine the "
                 "bound does not prove the load runs off the GUI thread",
                 syncMs, kLoadStallBoundMs);
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
    const double expandMs = meter.longestMs();

    meter.start();
    for (int step = 0; step < 20; ++step) {
        tree->verticalScrollBar()->setValue(tree->verticalScrollBar()->maximum() * step / 19);
        tree->viewport()->repaint();
        QCoreApplication::processEvents();
    }
    tree->scrollToBottom();
    tree->viewport()->repaint();
    meter.stop();
    const double scrollMs = meter.longestMs();
    QCOMPARE(tree->verticalScrollBar()->value(), tree->verticalScrollBar()->maximum());

    meter.start();
    view->collapseAll();
    tree->viewport()->repaint();
    meter.stop();
    const double collapseMs = meter.longestMs();

    qInfo("longest GUI-thread stall: expand all %.1f ms, scroll to the bottom %.1f ms, collapse all %.1f ms", expandMs,
          scrollMs, collapseMs);
    QVERIFY(expandMs < kViewStallBoundMs);
    QVERIFY(scrollMs < kViewStallBoundMs);
    QVERIFY(collapseMs < kViewStallBoundMs);
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
    const double applyMs = meter.longestMs();

    // A prefix: layers 6 and 60..63 of the key cache only.
    meter.start();
    view->filterEdit()->setText(QStringLiteral("KEY_cache[6"));
    QTRY_COMPARE_WITH_TIMEOUT(leafPaths(proxy).size(), 5, 5000);
    view->tree()->viewport()->repaint();
    meter.stop();
    const double prefixMs = meter.longestMs();
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
    const double clearMs = meter.longestMs();

    qInfo("longest GUI-thread stall: filter 'key_cache[63]' %.1f ms, 'KEY_cache[6' %.1f ms, clear %.1f ms", applyMs,
          prefixMs, clearMs);
    QVERIFY(applyMs < kViewStallBoundMs);
    QVERIFY(prefixMs < kViewStallBoundMs);
    QVERIFY(clearMs < kViewStallBoundMs);
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
