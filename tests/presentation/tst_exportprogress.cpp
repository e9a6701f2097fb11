// SPDX-License-Identifier: GPL-3.0-or-later
// ExportProgress, the running export's line for the Export dock and the status bar
// (issue 28, problem 9), without a widget: the pipeline's phase and round and the
// worker's step and count, as the service emits them; idle (no text, no fraction)
// before and after. No torch: the service's and its run's signals are emitted as they
// emit them.
#include "deterministictestmain.h"
#include "document/exportprogress.h"

#include "export/exportrun.h"
#include "export/exportservice.h"
#include "export/pythonruntime.h"

#include <QSignalSpy>

using namespace dimscope;

class TestExportProgress : public QObject
{
    Q_OBJECT
private slots:
    void idleHasNothingToShow();
    void phaseRoundAndCountFromTheEvents();
    void plainExportNamesNoPhase();
    void stepsWithoutACountAreBusy();
    void endsIdleWhenTheServiceFinishes();
    void eventsAfterTheEndAreIgnored();
};

void TestExportProgress::idleHasNothingToShow()
{
    ExportProgress progress;
    QVERIFY(!progress.isRunning());
    QCOMPARE(progress.text(), QString());
    QCOMPARE(progress.percent(), -1);
}

// "phase 2 · round 2 · verifying call 5 (3 of 8)": the phase and the round from the
// pipeline, the step and its count from the worker's verify event.
void TestExportProgress::phaseRoundAndCountFromTheEvents()
{
    ExportService service{PythonRuntime()};
    ExportProgress progress;
    progress.follow(&service);
    QSignalSpy changed(&progress, &ExportProgress::changed);
    progress.start(QStringLiteral("Exporting demo on cpu → /tmp/demo.pt2"));
    QVERIFY(progress.isRunning());
    QCOMPARE(progress.detail(), QStringLiteral("Exporting demo on cpu → /tmp/demo.pt2"));
    QCOMPARE(progress.percent(), -1);
    emit service.run()->attemptStarted(2, {3, 4, 5, 6, 7}, QStringLiteral("decode"), ConstraintSet());
    emit service.run()->roundStarted(2, 1);
    emit service.progress(QStringLiteral("export"), QStringLiteral("torch.export.export on call 3 (cpu, non-strict)"), -1);
    QCOMPARE(progress.text(), QStringLiteral("phase 2 · exporting"));
    QCOMPARE(progress.detail(), QStringLiteral("torch.export.export on call 3 (cpu, non-strict)"));
    QCOMPARE(progress.percent(), -1);
    emit service.run()->roundStarted(2, 2);
    emit service.progress(QStringLiteral("verify"), QStringLiteral("call 5 (3 of 8)"), 3.0 / 8);
    QCOMPARE(progress.text(), QStringLiteral("phase 2 · round 2 · verifying call 5 (3 of 8)"));
    QCOMPARE(progress.percent(), 38);
    QVERIFY(changed.count() >= 5);
}

// Without phases (the fix loop off, or one program for every call) and in round 1,
// the step alone.
void TestExportProgress::plainExportNamesNoPhase()
{
    ExportService service{PythonRuntime()};
    ExportProgress progress;
    progress.follow(&service);
    progress.start(QStringLiteral("Exporting"));
    QCOMPARE(progress.text(), QStringLiteral("Exporting")); // the title until the worker's first step
    emit service.run()->attemptStarted(1, {}, QStringLiteral("every call"), ConstraintSet());
    emit service.run()->roundStarted(1, 1);
    emit service.progress(QStringLiteral("verify"), QStringLiteral("call 2 (3 of 8)"), 3.0 / 8);
    QCOMPARE(progress.text(), QStringLiteral("verifying call 2 (3 of 8)"));
    // The continuation: no calls of the capture, but a phase of its own.
    emit service.run()->attemptStarted(3, {}, QStringLiteral("continuation"), ConstraintSet());
    emit service.progress(QStringLiteral("load_capture"), QStringLiteral("reading /tmp/c.safetensors"), -1);
    QCOMPARE(progress.text(), QStringLiteral("phase 3 · reading the capture"));
}

// A step with no fraction is busy, also right after a counted one; a stage this
// version does not know reads as the worker wrote it.
void TestExportProgress::stepsWithoutACountAreBusy()
{
    ExportProgress progress;
    progress.start(QStringLiteral("Exporting"));
    progress.report(QStringLiteral("verify"), QStringLiteral("call 7 (8 of 8)"), 1.0);
    QCOMPARE(progress.percent(), 100);
    progress.report(QStringLiteral("fresh_process"), QStringLiteral("loading /tmp/x.pt2 in a new interpreter"), -1);
    QCOMPARE(progress.percent(), -1);
    QCOMPARE(progress.text(), QStringLiteral("loading in a new interpreter"));
    progress.report(QStringLiteral("probe"), QStringLiteral("batch at 64"), 0.5);
    QCOMPARE(progress.text(), QStringLiteral("probe: batch at 64"));
    QCOMPARE(progress.percent(), 50);
    progress.readBack();
    QCOMPARE(progress.text(), QStringLiteral("reading the programs back"));
    QCOMPARE(progress.percent(), -1);
}

// The service's finished() (done, failed or cancelled) leaves it idle: no text and no
// fraction for a "0 %" or "100 %" to come from.
void TestExportProgress::endsIdleWhenTheServiceFinishes()
{
    ExportService service{PythonRuntime()};
    ExportProgress progress;
    progress.follow(&service);
    progress.start(QStringLiteral("Exporting"));
    emit service.progress(QStringLiteral("verify"), QStringLiteral("call 0 (1 of 2)"), 0.5);
    QSignalSpy changed(&progress, &ExportProgress::changed);
    emit service.finished(PhasedExportOutcome(), {});
    QCOMPARE(changed.count(), 1);
    QVERIFY(!progress.isRunning());
    QCOMPARE(progress.text(), QString());
    QCOMPARE(progress.percent(), -1);
}

void TestExportProgress::eventsAfterTheEndAreIgnored()
{
    ExportProgress progress;
    progress.start(QStringLiteral("Exporting"));
    progress.finish();
    QSignalSpy changed(&progress, &ExportProgress::changed);
    progress.report(QStringLiteral("verify"), QStringLiteral("call 0 (1 of 1)"), 1.0);
    progress.readBack();
    progress.finish();
    QCOMPARE(changed.count(), 0);
    QCOMPARE(progress.text(), QString());
}

DIMSCOPE_GUILESS_TEST_MAIN(TestExportProgress)
#include "tst_exportprogress.moc"
