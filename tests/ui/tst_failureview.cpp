// SPDX-License-Identifier: GPL-3.0-or-later
// The failure page of the export result view on failures as the worker sends them
// (docs/worker-protocol.md), no torch: violations named by the capture's key paths
// and Dim names, each leaf dim once, the violation's text taking the free width; no
// "Suggested fixes" box without fixes, and a model that does not import says what to do.
#include "deterministictestmain.h"
#include "document/exportprogress.h"
#include "document/exportresults.h"
#include "exportnotifier.h"
#include "exportpanel.h"
#include "exportresultview.h"
#include "models/verificationmodel.h"
#include "document/projectdocument.h"

#include "export/exportresult.h"
#include "export/exportservice.h"
#include "export/pythonruntime.h"
#include "export/phasedexportoutcome.h"

#include <QDialog>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTreeWidget>

using namespace dimscope;

namespace {

// A KV-cache model's failure as the worker sends it: the range line mentions
// input_ids.size()[1] three times (an older worker listed it three times), the
// equality names a cache leaf, torch's text writes both as L[...] sources. (No closing
// parenthesis before a quote, and no escaped quote, in these raw strings: moc would
// not see the test class.)
const char *kCacheViolation = R"J({"kind": "constraint_violation",
  "message": "Constraints violated (q_len, b2)!",
  "names": ["q_len", "b2"],
  "violations": [
    {"kind": "range", "dims": ["q_len"],
     "text": "Not all values of q_len = L['args'][1]['input_ids'].size()[1] in the specified range q_len <= 8 satisfy the generated guard L['args'][1]['input_ids'].size()[1] != 1 and L['args'][1]['input_ids'].size()[1] <= 7.",
     "sources": [
       {"source": "L['args'][1]['input_ids'].size()[1]", "path": "input_ids", "dim": 1, "dim_name": "q_len"},
       {"source": "L['args'][1]['input_ids'].size()[1]", "path": "input_ids", "dim": 1, "dim_name": "q_len"},
       {"source": "L['args'][1]['input_ids'].size()[1]", "path": "input_ids", "dim": 1, "dim_name": "q_len"}]},
    {"kind": "equal", "dims": ["b2", "batch"],
     "text": "The values of b2 = L['args'][1]['past_key_values']['key_cache'][0].size()[0] and batch = L['args'][1]['input_ids'].size()[0] must always be equal.",
     "sources": [
       {"source": "L['args'][1]['past_key_values']['key_cache'][0].size()[0]", "path": "past_key_values.key_cache[0]", "dim": 0, "dim_name": "b2"},
       {"source": "L['args'][1]['input_ids'].size()[0]", "path": "input_ids", "dim": 0, "dim_name": "batch"}],
     "source": {"file": "/home/me/lm.py", "line": 12, "function": "forward", "code": "k = torch.cat([past, k], dim=-2)  # keys"}}],
  "fixes": ["b2 = batch", "q_len = 4"]})J";

const char *kModelImport = R"J({"kind": "model_import",
  "message": "importing nonexistent_pkg.models:make_model failed: ModuleNotFoundError: No module named 'nonexistent_pkg'",
  "traceback": "Traceback (most recent call last):\n  File '<string>', line 1, in <module>\nModuleNotFoundError: No module named 'nonexistent_pkg'\n"})J";

PhasedExportOutcome failedOutcome(const char *json)
{
    const QJsonObject error = QJsonDocument::fromJson(QByteArray(json)).object();
    Q_ASSERT(!error.isEmpty());
    PhasedExportOutcome outcome;
    outcome.firstAttempt = ExportResult::fromFailure(WorkerFailure::fromJson(error));
    return outcome;
}

QStringList column(QTreeWidget *view, int column)
{
    QStringList out;
    for (int i = 0; i < view->topLevelItemCount(); ++i)
        out << view->topLevelItem(i)->text(column);
    return out;
}

} // namespace

class TestFailureView : public QObject
{
    Q_OBJECT
private slots:
    void violationsNameKeyPathsAndDimsOnce();
    void violationColumnTakesTheFreeWidth();
    void modelImportFailureSaysWhatToDoWithoutAnEmptyFixesBox();
    void firstExportCancelledSaysCancelledNeutrally();
    void cancelledReexportKeepsTheResultShown();
    void exportEndIsNotifiedOnlyWhenNoWindowIsActive();
};

void TestFailureView::violationsNameKeyPathsAndDimsOnce()
{
    ProjectDocument document;
    ExportResultView view(document.exportResults());
    document.exportResults()->setOutcome(failedOutcome(kCacheViolation), {});
    QVERIFY(view.showsFailure());
    auto *table = view.findChild<QTreeWidget *>(QStringLiteral("violationsView"));
    QVERIFY(table);
    QCOMPARE(column(table, ExportResultView::LeafDimsColumn),
             (QStringList{QStringLiteral("input_ids dim 1 (q_len)"),
                          QStringLiteral("past_key_values.key_cache[0] dim 0 (b2), input_ids dim 0 (batch)")}));
    QCOMPARE(column(table, ExportResultView::DimsColumn), (QStringList{QStringLiteral("q_len"), QStringLiteral("b2, batch")}));
    const QStringList texts = column(table, ExportResultView::ViolationColumn);
    QCOMPARE(texts.at(1), QStringLiteral("The values of b2 = past_key_values.key_cache[0] dim 0 and batch = input_ids dim 0 "
                                         "must always be equal."));
    QVERIFY2(!texts.join(QLatin1Char(' ')).contains(QLatin1String("L[")), qPrintable(texts.join(QLatin1Char('\n'))));
    QCOMPARE(column(table, ExportResultView::WhereColumn).at(1),
             QStringLiteral("/home/me/lm.py:12 in forward: k = torch.cat([past, k], dim=-2)  # keys"));
    // A cell narrower than its text shows the whole of it as a tooltip.
    QCOMPARE(table->topLevelItem(1)->toolTip(ExportResultView::LeafDimsColumn),
             QStringLiteral("past_key_values.key_cache[0] dim 0 (b2)\ninput_ids dim 0 (batch)"));
    QVERIFY(table->topLevelItem(0)->toolTip(ExportResultView::ViolationColumn).startsWith(QLatin1String("Not all values of q_len = input_ids dim 1")));
    auto *fixesBox = view.findChild<QWidget *>(QStringLiteral("fixesBox"));
    QVERIFY(fixesBox && fixesBox->isVisibleTo(&view));
    QCOMPARE(view.findChild<QListWidget *>(QStringLiteral("fixesView"))->count(), 2);
    QVERIFY(!view.findChild<QLabel *>(QStringLiteral("failureAdvice"))->isVisibleTo(&view));
}

void TestFailureView::violationColumnTakesTheFreeWidth()
{
    ProjectDocument document;
    ExportResultView view(document.exportResults());
    view.resize(1400, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    document.exportResults()->setOutcome(failedOutcome(kCacheViolation), {});
    auto *table = view.findChild<QTreeWidget *>(QStringLiteral("violationsView"));
    QTRY_VERIFY(table->isVisible());
    QHeaderView *header = table->header();
    for (int c : {int(ExportResultView::LeafDimsColumn), int(ExportResultView::DimsColumn), int(ExportResultView::WhereColumn)})
        QVERIFY2(header->sectionSize(c) > 40, qPrintable(QString::number(header->sectionSize(c))));
    // The last section ends at the viewport's right edge: no unused width beside it.
    const int violation = header->sectionSize(ExportResultView::ViolationColumn);
    QCOMPARE(header->sectionViewportPosition(ExportResultView::ViolationColumn) + violation, table->viewport()->width());
    QVERIFY2(violation >= table->viewport()->width() / 4,
             qPrintable(QStringLiteral("%1 of %2").arg(violation).arg(table->viewport()->width())));

    // In a narrow view the violation's text wraps: its row grows instead of cutting it.
    view.resize(700, 500);
    QTRY_VERIFY(table->visualItemRect(table->topLevelItem(0)).height() > 2 * table->fontMetrics().height());
}

void TestFailureView::modelImportFailureSaysWhatToDoWithoutAnEmptyFixesBox()
{
    ProjectDocument document;
    ExportResultView view(document.exportResults());
    // First a failure with fixes, then the import failure: nothing of the first stays.
    document.exportResults()->setOutcome(failedOutcome(kCacheViolation), {});
    document.exportResults()->setOutcome(failedOutcome(kModelImport), {});
    QVERIFY(view.showsFailure());
    QVERIFY(view.headline()->text().contains(QLatin1String("No module named 'nonexistent_pkg'")));
    QVERIFY(!view.findChild<QWidget *>(QStringLiteral("fixesBox"))->isVisibleTo(&view));
    QVERIFY(!view.findChild<QWidget *>(QStringLiteral("violationsView"))->isVisibleTo(&view));
    auto *advice = view.findChild<QLabel *>(QStringLiteral("failureAdvice"));
    QVERIFY(advice->isVisibleTo(&view));
    QVERIFY2(advice->text().contains(QLatin1String("File > Open Model")), qPrintable(advice->text()));
    QVERIFY(view.findChild<QWidget *>(QStringLiteral("reexportButton"))->isVisibleTo(&view));
    const QString details = view.findChild<QPlainTextEdit *>(QStringLiteral("failureDetails"))->toPlainText();
    QVERIFY(details.contains(QLatin1String("ModuleNotFoundError: No module named 'nonexistent_pkg'")));
    // The traceback under Python's own heading, not under a second one of ours.
    QVERIFY2(details.contains(QLatin1String("Traceback (most recent call last):")), qPrintable(details));
    QCOMPARE(details.count(QLatin1String("Traceback")), 1);
}

// The document's first export cancelled: nothing to keep, nothing failed. The result
// view and the Export dock's status line say "Cancelled" in the palette's text colour,
// with no failure page (issue 28, problem 7).
void TestFailureView::firstExportCancelledSaysCancelledNeutrally()
{
    ProjectDocument document;
    ExportResultView view(document.exportResults());
    ExportService service{PythonRuntime()};
    ExportProgress progress;
    ExportPanel panel(&service, document.exportResults(), &progress);
    PhasedExportOutcome cancelled;
    cancelled.cancelled = true;
    cancelled.firstAttempt = ExportResult::fromFailure(
        WorkerFailure::make(QStringLiteral("cancelled"), QStringLiteral("cancelled: the worker was stopped")));
    document.exportResults()->setOutcome(cancelled, {});
    const QString headline = view.findChild<QLabel *>(QStringLiteral("exportHeadline"))->text();
    QVERIFY2(headline.contains(QLatin1String("Cancelled")), qPrintable(headline));
    QVERIFY2(!headline.contains(QLatin1String("failed")) && !headline.contains(QLatin1String("color")), qPrintable(headline));
    QVERIFY(!view.showsFailure());
    QVERIFY(!view.findChild<QWidget *>(QStringLiteral("reexportButton"))->isVisibleTo(&view));
    auto *stage = panel.findChild<QLabel *>(QStringLiteral("exportStage"));
    QVERIFY2(stage->text().startsWith(QLatin1String("Cancelled")), qPrintable(stage->text()));
    // A failure after it is a failure again.
    document.exportResults()->setOutcome(failedOutcome(kModelImport), {});
    QVERIFY(view.showsFailure());
    QVERIFY(view.headline()->text().contains(QLatin1String("Export failed")));
}

// A re-export cancelled over a verified result (issue 28, problem 7: it replaced the
// result with a red "Export failed (cancelled)"): the result view still shows the
// previous program and its replayed calls, the Export dock says "Cancelled" and that
// the result is kept, in the palette's text colour.
void TestFailureView::cancelledReexportKeepsTheResultShown()
{
    ProjectDocument document;
    ExportResultView view(document.exportResults());
    ExportService service{PythonRuntime()};
    ExportProgress progress;
    ExportPanel panel(&service, document.exportResults(), &progress);
    ExportedProgram program;
    program.result.ok = program.result.exported = true;
    program.result.output = QStringLiteral("/tmp/kept.pt2");
    program.result.verification.resize(3);
    for (int c = 0; c < 3; ++c) {
        program.result.verification[c].call = c;
        program.result.verification[c].status = QStringLiteral("ok");
    }
    program.calls = {0, 1, 2};
    PhasedExportOutcome verified;
    verified.programs = {program};
    document.exportResults()->setOutcome(verified, {});
    const QString before = view.headline()->text();
    QVERIFY2(before.contains(QLatin1String("Exported")), qPrintable(before));

    PhasedExportOutcome cancelled;
    cancelled.cancelled = true;
    cancelled.firstAttempt = ExportResult::fromFailure(
        WorkerFailure::make(QStringLiteral("cancelled"), QStringLiteral("cancelled: the worker was stopped")));
    document.exportResults()->setOutcome(cancelled, {});
    QVERIFY(!view.showsFailure());
    QCOMPARE(view.headline()->text(), before);
    QVERIFY2(view.headline()->text().contains(QLatin1String("/tmp/kept.pt2")), qPrintable(view.headline()->text()));
    QCOMPARE(view.verificationModel()->rowCount(), 3);
    auto *stage = panel.findChild<QLabel *>(QStringLiteral("exportStage"));
    QVERIFY2(stage->text().startsWith(QLatin1String("Cancelled")) && stage->text().contains(QLatin1String("kept")),
             qPrintable(stage->text()));
    QVERIFY2(!stage->text().contains(QLatin1String("color")) && !stage->text().contains(QLatin1String("failed")),
             qPrintable(stage->text()));
}

// The end of an export is announced (issue 28, problem 9) when none of dimscope's
// windows is active, never while the user is in one of them (the main window or a
// dialog of it), and never for a cancelled export. Offscreen there is no system tray:
// QApplication::alert is how it is announced.
void TestFailureView::exportEndIsNotifiedOnlyWhenNoWindowIsActive()
{
    QWidget window;
    ProjectDocument document;
    ExportService service{PythonRuntime()};
    ExportNotifier notifier(&window, &service, document.exportResults());
    QSignalSpy notified(&notifier, &ExportNotifier::notified);
    auto exportEnds = [&](const PhasedExportOutcome &outcome) {
        document.exportResults()->follow(&service);
        emit service.finished(outcome, {});
        QTest::qWait(20); // the notifier looks once the results took the outcome
    };

    exportEnds(failedOutcome(kModelImport)); // no window shown: none is active
    QCOMPARE(notified.count(), 1);
    QCOMPARE(notified.first().at(0).toString(), QStringLiteral("dimscope: export failed"));
    QCOMPARE(notified.first().at(1).toString(), document.exportResults()->summary());
    QCOMPARE(notifier.lastMethod(), ExportNotifier::Method::Alert);
    PhasedExportOutcome cancelled;
    cancelled.cancelled = true;
    exportEnds(cancelled);
    QCOMPARE(notified.count(), 1);

    // A dialog of the window is active, the window itself is not: the user is here.
    window.show();
    QDialog dialog(&window);
    dialog.show();
    dialog.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&dialog));
    QVERIFY(!window.isActiveWindow());
    exportEnds(failedOutcome(kModelImport));
    QCOMPARE(notified.count(), 1);
}

DIMSCOPE_TEST_MAIN(TestFailureView)
#include "tst_failureview.moc"
