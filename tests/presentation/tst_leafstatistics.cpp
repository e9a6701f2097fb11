// SPDX-License-Identifier: GPL-3.0-or-later
// LeafStatistics, without a widget: the statistics of the requested leaf in every call,
// computed off the GUI thread for the last of a burst of requests only; a newer request
// or clear() drops the job in flight.
#include "document/leafstatistics.h"

#include "capture/capturereader.h"
#include "deterministictestmain.h"
#include "kvcapture.h"

#include <QThreadPool>

#include <cmath>

using namespace dimscope;

namespace {

constexpr int kWaitMs = 30000; // the first statistic loads LibTorch

LoadedCapturePtr demoCapture()
{
    QString error;
    std::optional<Capture> capture = CaptureReader::open(
        QStringLiteral(DIMSCOPE_SOURCE_DIR "/resources/demo/demo-capture.safetensors"), &error);
    if (!capture)
        qFatal("demo capture: %s", qPrintable(error));
    return LoadedCapture::build(*capture);
}

int nodeOf(const LoadedCapturePtr &loaded, const QString &path)
{
    const int node = loaded->tree.nodeForPath(path);
    if (node <= 0)
        qFatal("no node %s", qPrintable(path));
    return node;
}

} // namespace

class TestLeafStatistics : public QObject
{
    Q_OBJECT
private slots:
    void cleanup() { QVERIFY(QThreadPool::globalInstance()->waitForDone(kWaitMs)); }

    void computesTheLeafInEveryCall()
    {
        // Given the demo capture and its padded attention mask
        const LoadedCapturePtr loaded = demoCapture();
        LeafStatistics statistics;
        QSignalSpy finished(&statistics, &LeafStatistics::finished);
        const int mask = nodeOf(loaded, QStringLiteral("attention_mask"));
        // When its statistics are requested
        statistics.request(loaded, mask);
        // Then they arrive for every call: one 0 among ten values in the prefill.
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(finished.size(), 1);
        QCOMPARE(finished.at(0).at(0).toInt(), mask);
        QCOMPARE(statistics.node(), mask);
        QCOMPARE(statistics.statistics().size(), 6);
        const TensorStats &prefill = statistics.statistics().at(0);
        QVERIFY2(prefill.ok, qPrintable(prefill.error));
        QCOMPARE(prefill.min, 0.0);
        QCOMPARE(prefill.max, 1.0);
        QCOMPARE(prefill.mean, 0.9);
        QVERIFY(std::abs(prefill.std - 0.3) < 1e-9);
        QCOMPARE(prefill.nanCount, 0);
    }

    void aBurstOfRequestsStartsOneJobForTheLast()
    {
        // Given three leaves requested one after the other, faster than the debounce
        const LoadedCapturePtr loaded = demoCapture();
        LeafStatistics statistics;
        QSignalSpy started(&statistics, &LeafStatistics::started);
        QSignalSpy finished(&statistics, &LeafStatistics::finished);
        const int ids = nodeOf(loaded, QStringLiteral("input_ids"));
        const int mask = nodeOf(loaded, QStringLiteral("attention_mask"));
        statistics.request(loaded, ids);
        statistics.request(loaded, mask);
        statistics.request(loaded, ids);
        // Then one job ran, for the last of them.
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(started.size(), 1);
        QCOMPARE(started.at(0).at(0).toInt(), ids);
        QCOMPARE(statistics.node(), ids);
    }

    void aNewRequestDropsTheJobInFlight()
    {
        // Given a job in flight for the attention mask
        const LoadedCapturePtr loaded = demoCapture();
        LeafStatistics statistics;
        QSignalSpy started(&statistics, &LeafStatistics::started);
        QSignalSpy cancelled(&statistics, &LeafStatistics::cancelled);
        QSignalSpy finished(&statistics, &LeafStatistics::finished);
        const int ids = nodeOf(loaded, QStringLiteral("input_ids"));
        const int mask = nodeOf(loaded, QStringLiteral("attention_mask"));
        statistics.request(loaded, mask);
        QVERIFY(started.wait(kWaitMs));
        // When the input ids are requested before it ends
        statistics.request(loaded, ids);
        QCOMPARE(statistics.node(), -1); // the mask's are not shown for the ids
        // Then the mask's job is dropped and only the ids' statistics arrive.
        QVERIFY(finished.wait(kWaitMs));
        QTRY_COMPARE_WITH_TIMEOUT(cancelled.size(), 1, kWaitMs);
        QCOMPARE(cancelled.at(0).at(0).toInt(), mask);
        QCOMPARE(started.size(), 2);
        QCOMPARE(finished.size(), 1);
        QCOMPARE(finished.at(0).at(0).toInt(), ids);
        QCOMPARE(statistics.node(), ids);
    }

    void clearDropsTheJobAndTheStatistics()
    {
        // Given statistics held, and a new job in flight
        const LoadedCapturePtr loaded = demoCapture();
        LeafStatistics statistics;
        QSignalSpy started(&statistics, &LeafStatistics::started);
        QSignalSpy cancelled(&statistics, &LeafStatistics::cancelled);
        QSignalSpy finished(&statistics, &LeafStatistics::finished);
        const int mask = nodeOf(loaded, QStringLiteral("attention_mask"));
        statistics.request(loaded, mask);
        QVERIFY(finished.wait(kWaitMs));
        statistics.request(loaded, mask);
        QVERIFY(started.wait(kWaitMs));
        // When they are cleared
        statistics.clear();
        // Then nothing is held, and the job's result never arrives.
        QCOMPARE(statistics.node(), -1);
        QVERIFY(statistics.statistics().isEmpty());
        QVERIFY(cancelled.wait(kWaitMs));
        QTest::qWait(2 * LeafStatistics::kDebounceMs);
        QCOMPARE(finished.size(), 1);
        QCOMPARE(statistics.node(), -1);
    }

    void aNodeThatIsNoLeafStartsNothing()
    {
        // Given the tree's root, an inner node and a node past the end
        const LoadedCapturePtr loaded = demoCapture();
        LeafStatistics statistics;
        QSignalSpy started(&statistics, &LeafStatistics::started);
        int inner = -1;
        for (int n = 1; n < loaded->tree.nodes().size() && inner < 0; ++n)
            if (!loaded->tree.node(n).isLeaf())
                inner = n;
        QVERIFY(inner > 0);
        // When they are requested, then no job starts.
        for (int node : {0, inner, int(loaded->tree.nodes().size()), -1}) {
            statistics.request(loaded, node);
            QTest::qWait(2 * LeafStatistics::kDebounceMs);
            QCOMPARE(started.size(), 0);
        }
        statistics.request({}, 1);
        QTest::qWait(2 * LeafStatistics::kDebounceMs);
        QCOMPARE(started.size(), 0);
    }

    void aCaptureWithoutBytesGivesAnErrorPerCall()
    {
        // Given a capture built in memory: no file behind its tensors
        const LoadedCapturePtr loaded = LoadedCapture::build(test::kvCapture(2, 1));
        LeafStatistics statistics;
        QSignalSpy finished(&statistics, &LeafStatistics::finished);
        statistics.request(loaded, nodeOf(loaded, QStringLiteral("input_ids")));
        // Then each call's statistics say why not, and nothing crashed.
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(statistics.statistics().size(), 2);
        for (const TensorStats &s : statistics.statistics()) {
            QVERIFY(!s.ok);
            QVERIFY(!s.error.isEmpty());
        }
    }

    void mayBeDestroyedWhileAJobRuns()
    {
        // Given a job in flight
        const LoadedCapturePtr loaded = demoCapture();
        auto statistics = std::make_unique<LeafStatistics>();
        QSignalSpy started(statistics.get(), &LeafStatistics::started);
        statistics->request(loaded, nodeOf(loaded, QStringLiteral("attention_mask")));
        QVERIFY(started.wait(kWaitMs));
        // When its owner is destroyed, then the job ends on its own, touching nothing gone.
        statistics.reset();
        QVERIFY(QThreadPool::globalInstance()->waitForDone(kWaitMs));
        QTest::qWait(20);
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestLeafStatistics)
#include "tst_leafstatistics.moc"
