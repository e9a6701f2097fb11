// SPDX-License-Identifier: GPL-3.0-or-later
// LatestJob: only the current job's result reaches its owner, on the owner's thread;
// a superseded or cancelled job is told to stop and its result never arrives; the owner
// may die while a job runs.
#include "util/latestjob.h"

#include "deterministictestmain.h"

#include <QScopeGuard>
#include <QSemaphore>
#include <QThread>
#include <QThreadPool>

#include <memory>

using namespace dimscope;

namespace {

constexpr int kWaitMs = 10000;

// Blocks a job until the test lets it go. Shared with the jobs, and opened wide when
// the test function ends, so that a failing test leaves no job blocked on it.
struct Gate {
    QSemaphore entered;
    QSemaphore open;
    void pass()
    {
        entered.release();
        open.acquire();
    }
};

using GatePtr = std::shared_ptr<Gate>;

auto openAtEnd(const GatePtr &gate)
{
    return qScopeGuard([gate] { gate->open.release(1000); });
}

// Waits until the job in `gate` is inside it (the work started).
bool waitEntered(const GatePtr &gate) { return gate->entered.tryAcquire(1, kWaitMs); }

} // namespace

class TestLatestJob : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        // Tests hold up to two jobs at a gate while others run: never starve the pool.
        QThreadPool::globalInstance()->setMaxThreadCount(qMax(4, QThreadPool::globalInstance()->maxThreadCount()));
    }

    void cleanup() { QVERIFY(QThreadPool::globalInstance()->waitForDone(kWaitMs)); }

    void deliversTheResultOnTheOwnersThread()
    {
        // Given a job that records the thread it ran on
        LatestJob jobs;
        QSignalSpy finished(&jobs, &LatestJob::finished);
        QThread *workThread = nullptr;
        QThread *deliverThread = nullptr;
        int delivered = 0;
        // When it is started
        const LatestJob::JobId job = jobs.start(
            [&workThread](const LatestJob::Control &) {
                workThread = QThread::currentThread();
                return 42;
            },
            [&](int result) {
                deliverThread = QThread::currentThread();
                delivered = result;
            });
        QVERIFY(jobs.isRunning());
        QCOMPARE(jobs.currentJob(), job);
        // Then its work ran on a pool thread and its result came home, then finished().
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(delivered, 42);
        QVERIFY(workThread && workThread != QThread::currentThread());
        QCOMPARE(deliverThread, QThread::currentThread());
        QCOMPARE(finished.size(), 1);
        QCOMPARE(finished.at(0).at(0).value<LatestJob::JobId>(), job);
        QVERIFY(!jobs.isRunning());
        QCOMPARE(jobs.currentJob(), LatestJob::JobId(0));
    }

    void aNewerStartSupersedesTheJobInFlight()
    {
        // Given a job held inside its work
        LatestJob jobs;
        QSignalSpy finished(&jobs, &LatestJob::finished);
        QSignalSpy dropped(&jobs, &LatestJob::dropped);
        const auto gate = std::make_shared<Gate>();
        const auto opener = openAtEnd(gate);
        auto sawCancel = std::make_shared<std::atomic_bool>(false);
        QStringList delivered;
        const LatestJob::JobId first = jobs.start(
            [gate, sawCancel](const LatestJob::Control &control) {
                gate->pass();
                sawCancel->store(control.isCancelled() && control.cancelFlag()->load());
                return QStringLiteral("first");
            },
            [&delivered](const QString &r) { delivered << r; });
        QVERIFY(waitEntered(gate));
        // When a second job is started, and ends, before the first one ends
        const LatestJob::JobId second = jobs.start([](const LatestJob::Control &) { return QStringLiteral("second"); },
                                                   [&delivered](const QString &r) { delivered << r; });
        QVERIFY(second != first);
        QVERIFY(finished.wait(kWaitMs));
        gate->open.release();
        QTRY_COMPARE_WITH_TIMEOUT(dropped.size(), 1, kWaitMs);
        QTest::qWait(50); // anything else queued would be delivered now
        // Then the first was told to stop, its result was dropped, and only the second arrived.
        QVERIFY(sawCancel->load());
        QCOMPARE(delivered, QStringList{QStringLiteral("second")});
        QCOMPARE(finished.size(), 1);
        QCOMPARE(finished.at(0).at(0).value<LatestJob::JobId>(), second);
        QCOMPARE(dropped.at(0).at(0).value<LatestJob::JobId>(), first);
    }

    void aSupersededJobThatEndsFirstIsStillDropped()
    {
        // Given a second job held inside its work, started while the first one was held
        LatestJob jobs;
        QSignalSpy finished(&jobs, &LatestJob::finished);
        QSignalSpy dropped(&jobs, &LatestJob::dropped);
        const auto firstGate = std::make_shared<Gate>();
        const auto secondGate = std::make_shared<Gate>();
        const auto openFirst = openAtEnd(firstGate);
        const auto openSecond = openAtEnd(secondGate);
        QList<int> delivered;
        jobs.start(
            [firstGate](const LatestJob::Control &) {
                firstGate->pass();
                return 1;
            },
            [&delivered](int r) { delivered << r; });
        QVERIFY(waitEntered(firstGate));
        jobs.start(
            [secondGate](const LatestJob::Control &) {
                secondGate->pass();
                return 2;
            },
            [&delivered](int r) { delivered << r; });
        QVERIFY(waitEntered(secondGate));
        // When the first, superseded, ends before the second
        firstGate->open.release();
        QVERIFY(dropped.wait(kWaitMs));
        // Then its result is dropped, and the job in flight is still running
        QVERIFY(delivered.isEmpty());
        QVERIFY(finished.isEmpty());
        QVERIFY(jobs.isRunning());
        // and the second's arrives when it ends.
        secondGate->open.release();
        QVERIFY(finished.wait(kWaitMs));
        QCOMPARE(delivered, QList<int>{2});
    }

    void manyQuickStartsDeliverOnlyTheLast()
    {
        // Given 200 starts in a row, each superseding the one before
        LatestJob jobs;
        QSignalSpy finished(&jobs, &LatestJob::finished);
        QSignalSpy dropped(&jobs, &LatestJob::dropped);
        QList<int> delivered;
        for (int i = 0; i < 200; ++i)
            jobs.start([i](const LatestJob::Control &) { return i; }, [&delivered](int r) { delivered << r; });
        // Then only the last one's result arrives, and every other job is dropped once.
        QVERIFY(finished.wait(kWaitMs));
        QTRY_COMPARE_WITH_TIMEOUT(dropped.size(), 199, kWaitMs);
        QTest::qWait(50);
        QCOMPARE(delivered, QList<int>{199});
        QCOMPARE(finished.size(), 1);
    }

    void cancelStopsTheJobAndItsDelivery()
    {
        // Given a job held inside its work
        LatestJob jobs;
        QSignalSpy finished(&jobs, &LatestJob::finished);
        QSignalSpy dropped(&jobs, &LatestJob::dropped);
        const auto gate = std::make_shared<Gate>();
        const auto opener = openAtEnd(gate);
        auto sawCancel = std::make_shared<std::atomic_bool>(false);
        bool delivered = false;
        jobs.start(
            [gate, sawCancel](const LatestJob::Control &control) {
                gate->pass();
                sawCancel->store(control.isCancelled());
                return 0;
            },
            [&delivered](int) { delivered = true; });
        QVERIFY(waitEntered(gate));
        // When it is cancelled
        jobs.cancel();
        QVERIFY(!jobs.isRunning());
        gate->open.release();
        // Then the work saw it, and its result never arrives.
        QVERIFY(dropped.wait(kWaitMs));
        QTest::qWait(50);
        QVERIFY(sawCancel->load());
        QVERIFY(!delivered);
        QVERIFY(finished.isEmpty());
    }

    void progressOfASupersededJobNeverArrives()
    {
        // Given a job that posts progress before and after it is superseded
        LatestJob jobs;
        const auto gate = std::make_shared<Gate>();
        const auto opener = openAtEnd(gate);
        QList<int> progress;
        jobs.start(
            [gate, &progress](const LatestJob::Control &control) {
                control.post([&progress] { progress << 1; });
                gate->pass();
                control.post([&progress] { progress << 2; });
                return 0;
            },
            [](int) {});
        QVERIFY(waitEntered(gate));
        QTRY_COMPARE_WITH_TIMEOUT(progress, QList<int>{1}, kWaitMs); // came home while current
        // When a newer job supersedes it before its second post
        QSignalSpy finished(&jobs, &LatestJob::finished);
        jobs.start([](const LatestJob::Control &) { return 0; }, [](int) {});
        gate->open.release();
        QVERIFY(finished.wait(kWaitMs));
        QVERIFY(QThreadPool::globalInstance()->waitForDone(kWaitMs));
        QTest::qWait(50);
        // Then the second post was dropped.
        QCOMPARE(progress, QList<int>{1});
    }

    void aDeliveryMayStartTheNextJob()
    {
        // Given a job whose delivery starts another one
        LatestJob jobs;
        QSignalSpy finished(&jobs, &LatestJob::finished);
        QList<int> delivered;
        std::function<void(int)> deliver = [&](int r) {
            delivered << r;
            if (r < 3)
                jobs.start([r](const LatestJob::Control &) { return r + 1; }, deliver);
        };
        jobs.start([](const LatestJob::Control &) { return 1; }, deliver);
        // Then each one is delivered in turn.
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 3, kWaitMs);
        QCOMPARE(delivered, (QList<int>{1, 2, 3}));
        QVERIFY(!jobs.isRunning());
    }

    void theOwnerMayDieWhileAJobRuns()
    {
        // Given a job held inside its work, holding data of its own, started by an
        // owner that then posts progress and returns a result
        auto owner = std::make_unique<QObject>();
        auto *jobs = new LatestJob(owner.get());
        const auto gate = std::make_shared<Gate>();
        const auto opener = openAtEnd(gate);
        auto data = std::make_shared<QByteArray>(1 << 20, 'x');
        std::weak_ptr<QByteArray> watchData = data;
        auto reached = std::make_shared<std::atomic_int>(0);
        bool delivered = false;
        jobs->start(
            [gate, data = std::move(data), reached](const LatestJob::Control &control) {
                gate->pass();
                control.post([reached] { ++*reached; });
                reached->store(control.isCancelled() ? 100 : 1);
                return *data;
            },
            [&delivered](const QByteArray &) { delivered = true; });
        QVERIFY(waitEntered(gate));
        // When the owner is destroyed before the job ends
        owner.reset();
        gate->open.release();
        QVERIFY(QThreadPool::globalInstance()->waitForDone(kWaitMs));
        QTest::qWait(50);
        QCoreApplication::sendPostedEvents();
        // Then the job saw the cancel, nothing reached the dead owner (no crash, which
        // AddressSanitizer would report), and the job's data is released.
        QCOMPARE(reached->load(), 100);
        QVERIFY(!delivered);
        QVERIFY(watchData.expired());
    }

    void theOwnerMayDieWithAResultQueued()
    {
        // Given a job that ended, its result queued for its owner but not yet delivered
        auto jobs = std::make_unique<LatestJob>();
        auto payload = std::make_shared<int>(7);
        std::weak_ptr<int> watchPayload = payload;
        bool delivered = false;
        jobs->start([payload = std::move(payload)](const LatestJob::Control &) { return payload; },
                    [&delivered](const std::shared_ptr<int> &) { delivered = true; });
        QVERIFY(QThreadPool::globalInstance()->waitForDone(kWaitMs));
        // When the owner is destroyed before the event loop runs
        jobs.reset();
        QCoreApplication::sendPostedEvents();
        QTest::qWait(20);
        // Then the result is never delivered, and freed.
        QVERIFY(!delivered);
        QVERIFY(watchPayload.expired());
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestLatestJob)
#include "tst_latestjob.moc"
