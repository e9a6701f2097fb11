// SPDX-License-Identifier: GPL-3.0-or-later
// ExportResults, the one owner of what the document's exports produced, without a
// widget: an outcome with its read-backs, explanations and the Export dock's line; a
// failure's fixes previewed against the document; a .pt2 opened on its own; a new
// document clearing it; and only the followed export's outcome, only while the
// document it exported is open. Observed through QSignalSpy; no torch (the service's
// finished() is emitted as the service emits it).
#include "capturebuilder.h"
#include "deterministictestmain.h"
#include "document/exportresults.h"
#include "document/projectdocument.h"

#include "export/exportservice.h"
#include "export/pythonruntime.h"
#include "inference/shapeinference.h"

#include <QGuiApplication>
#include <QSignalSpy>

using namespace dimscope;

namespace {

ShapeExplanation decision(const QString &dim)
{
    ShapeExplanation e;
    e.kind = QStringLiteral("specialized");
    e.expression = dim + QStringLiteral(" == 4");
    e.dims = {dim};
    return e;
}

// One program for every call, exported as asked, its verification all accepted.
PhasedExportOutcome exportedOutcome(const QString &output)
{
    ExportedProgram program;
    program.result.ok = true;
    program.result.exported = true;
    program.result.output = output;
    program.result.verification.resize(3);
    program.result.explanations = {decision(QStringLiteral("seq"))};
    program.calls = {0, 1, 2};
    PhasedExportOutcome outcome;
    outcome.programs = {program};
    return outcome;
}

PhasedExportOutcome failedOutcome(const QStringList &fixes)
{
    WorkerFailure failure = WorkerFailure::make(QStringLiteral("constraint_violation"), QStringLiteral("Constraints violated"));
    failure.fixes = fixes;
    PhasedExportOutcome outcome;
    outcome.firstAttempt = ExportResult::fromFailure(failure);
    return outcome;
}

} // namespace

class TestExportResults : public QObject
{
    Q_OBJECT
private slots:
    void outcomeWithItsProgramsAndDecisions();
    void failurePreviewsFixesAgainstTheDocument();
    void programOpenedOnItsOwn();
    void anotherDocumentClearsThem();
    void onlyTheFollowedExportOfTheOpenDocument();
};

void TestExportResults::outcomeWithItsProgramsAndDecisions()
{
    ProjectDocument document;
    ExportResults *results = document.exportResults();
    QVERIFY(results->isEmpty());
    QSignalSpy changed(results, &ExportResults::changed);
    const QString output = QStringLiteral("/tmp/out.pt2");
    results->setOutcome(exportedOutcome(output), {});
    QCOMPARE(changed.size(), 1);
    QVERIFY(results->hasOutcome() && !results->isEmpty());
    QCOMPARE(results->outcome().programs.size(), 1);
    QCOMPARE(results->readBacks().size(), 1); // one per program, also when none came
    QCOMPARE(results->lastResult().output, output);
    QVERIFY(!results->program()); // the read-back had no program
    QCOMPARE(results->explanations().size(), 1);
    QCOMPARE(results->explanations().first().expression, QStringLiteral("seq == 4"));
    QVERIFY(results->succeeded());
    QCOMPARE(results->summary(), QStringLiteral("Exported /tmp/out.pt2; 3 of 3 captured calls replay."));
    QVERIFY(results->fixPreviews().isEmpty());

    // A re-export cancelled: the verified result and its Why stay, said neutrally
    // (issue 28, problem 7).
    PhasedExportOutcome cancelled = failedOutcome({});
    cancelled.cancelled = true;
    cancelled.firstAttempt.failure = WorkerFailure::make(QStringLiteral("cancelled"), QStringLiteral("cancelled: the worker was stopped"));
    results->setOutcome(cancelled, {});
    QCOMPARE(changed.size(), 2); // the Export dock's line follows
    QVERIFY(results->succeeded());
    QCOMPARE(results->outcome().programs.size(), 1);
    QCOMPARE(results->lastResult().output, output);
    QCOMPARE(results->explanations().size(), 1);
    QCOMPARE(results->summary(), QStringLiteral("Cancelled; the previous result is kept."));
    QVERIFY(results->cancelled());
    // The next export's outcome replaces it as any would.
    results->setOutcome(exportedOutcome(output), {});
    QCOMPARE(results->summary(), QStringLiteral("Exported /tmp/out.pt2; 3 of 3 captured calls replay."));
    // Cancelled with no result before: nothing to keep.
    results->clear();
    results->setOutcome(cancelled, {});
    QVERIFY(!results->succeeded());
    // Said as what it is, not as a failure (issue 28, problem 7).
    QVERIFY(results->cancelled());
    QCOMPARE(results->summary(), QStringLiteral("Cancelled; nothing exported yet (the next export starts a fresh worker)."));
    QVERIFY(results->explanations().isEmpty());
    results->setOutcome(exportedOutcome(output), {});
    QVERIFY(!results->cancelled());
}

void TestExportResults::failurePreviewsFixesAgainstTheDocument()
{
    ProjectDocument document;
    const Capture capture = test::makeCapture(QStringLiteral("x=2x5 | x=3x6 | x=4x7"));
    document.setCapture(QStringLiteral("/tmp/x.safetensors"), capture, ShapeInference::infer(capture));
    QVERIFY(!document.constraints().dims().isEmpty());
    const QString dim = document.constraints().dims().first().name;
    ExportResults *results = document.exportResults();
    const QStringList fixes{dim + QStringLiteral(" = 3")};
    results->setOutcome(failedOutcome(fixes), {});
    QVERIFY(!results->succeeded());
    QCOMPARE(results->summary(), QStringLiteral("Export failed (constraint_violation): Constraints violated"));
    QCOMPARE(results->fixPreviews().size(), 1);
    QCOMPARE(results->fixPreviews().first().line, fixes.first());
    // Fixing the Dim to 3 breaks the calls where it is 2 and 4 (or 5 and 7).
    QVERIFY(results->fixPreviews().first().breaksCalls());
    QVERIFY(results->readBacks().isEmpty());
}

void TestExportResults::programOpenedOnItsOwn()
{
    ProjectDocument document;
    ExportResults *results = document.exportResults();
    results->setOutcome(exportedOutcome(QStringLiteral("/tmp/a.pt2")), {});
    QSignalSpy changed(results, &ExportResults::changed);
    Pt2Program program;
    program.filePath = QStringLiteral("/tmp/b.pt2");
    results->setOpenedPrograms(program.filePath, {program});
    QCOMPARE(changed.size(), 1);
    QVERIFY(!results->isEmpty());
    QVERIFY(!results->hasOutcome()); // the export's outcome went with it
    QVERIFY(results->program());
    QCOMPARE(results->program()->filePath, program.filePath);
    QVERIFY(!results->mapping());
    QCOMPARE(results->openedProgramPath(), program.filePath);
    QVERIFY(results->explanations().isEmpty());
    QVERIFY(results->summary().isEmpty());
}

void TestExportResults::anotherDocumentClearsThem()
{
    ProjectDocument document;
    const Capture capture = test::makeCapture(QStringLiteral("x=2x5 | x=3x6"));
    document.setCapture(QStringLiteral("/tmp/x.safetensors"), capture, ShapeInference::infer(capture));
    ExportResults *results = document.exportResults();
    results->setOutcome(exportedOutcome(QStringLiteral("/tmp/x.pt2")), {});
    QSignalSpy changed(results, &ExportResults::changed);
    // Cleared before the views hear of the new capture.
    bool emptyWhenTheCaptureChanged = false;
    connect(&document, &ProjectDocument::captureChanged, this,
            [&] { emptyWhenTheCaptureChanged = results->isEmpty() && results->explanations().isEmpty(); });
    document.setCapture(QStringLiteral("/tmp/y.safetensors"), capture, ShapeInference::infer(capture));
    QVERIFY(emptyWhenTheCaptureChanged);
    QCOMPARE(changed.size(), 1);
    results->setOutcome(exportedOutcome(QStringLiteral("/tmp/y.pt2")), {});
    document.clear();
    QVERIFY(results->isEmpty());
    QCOMPARE(changed.size(), 3);
}

void TestExportResults::onlyTheFollowedExportOfTheOpenDocument()
{
    ProjectDocument document;
    ExportResults *results = document.exportResults();
    ExportService service{PythonRuntime()};
    QSignalSpy changed(results, &ExportResults::changed);
    // Not followed: another document's export, or none of this one's.
    emit service.finished(exportedOutcome(QStringLiteral("/tmp/stray.pt2")), {});
    QVERIFY(changed.isEmpty());
    QVERIFY(results->isEmpty());

    results->follow(&service);
    emit service.finished(exportedOutcome(QStringLiteral("/tmp/followed.pt2")), {ProgramReadBack{}});
    QCOMPARE(changed.size(), 1);
    QCOMPARE(results->lastResult().output, QStringLiteral("/tmp/followed.pt2"));
    // One outcome per export followed.
    emit service.finished(exportedOutcome(QStringLiteral("/tmp/later.pt2")), {});
    QCOMPARE(changed.size(), 1);
    QCOMPARE(results->lastResult().output, QStringLiteral("/tmp/followed.pt2"));

    // The document replaced while its export runs: the outcome is dropped.
    results->follow(&service);
    document.clear();
    QCOMPARE(changed.size(), 2);
    emit service.finished(exportedOutcome(QStringLiteral("/tmp/replaced.pt2")), {});
    QCOMPARE(changed.size(), 2);
    QVERIFY(results->isEmpty());
}

DIMSCOPE_TEST_MAIN_IMPL(TestExportResults, QGuiApplication, {})
#include "tst_exportresults.moc"
