// SPDX-License-Identifier: GPL-3.0-or-later
// Compare (issue 28, problem 12) without a widget: ExportResults keeps the document's
// last exports (a re-export adds, it does not replace; at most kHistorySize; cleared
// with the document), ExportComparison puts two of them side by side (ranges per Dim,
// guards, calls served, verification) with the differences marked, CaptureComparison
// two captures (new and missing leaves, dims that vary), and ComparisonModel shows a
// comparison (checked with QAbstractItemModelTester). No torch: outcomes are built as
// the export service delivers them.
#include "capturebuilder.h"
#include "compare/capturecomparison.h"
#include "compare/exportcomparison.h"
#include "deterministictestmain.h"
#include "document/exportresults.h"
#include "document/projectdocument.h"
#include "models/comparisonmodel.h"

#include <QAbstractItemModelTester>
#include <QGuiApplication>
#include <QSignalSpy>

using namespace dimscope;

namespace {

ShapeExplanation decision(const QString &kind, const QString &expression)
{
    ShapeExplanation e;
    e.kind = kind;
    e.expression = expression;
    return e;
}

CallVerification verified(int call, const QString &status)
{
    CallVerification v;
    v.call = call;
    v.status = status;
    return v;
}

// A program read back with one range per symbol, the symbols named as the Dims.
ProgramReadBack readBack(const QVector<std::tuple<QString, QString, qint64, std::optional<qint64>>> &ranges)
{
    Pt2Program program;
    Pt2DimMapping mapping;
    for (const auto &[symbol, dim, min, max] : ranges) {
        Pt2Range r;
        r.key = symbol;
        r.expr = SymExpr::parse(symbol);
        r.min = min;
        r.max = max;
        program.ranges << r;
        mapping.symbolToDim.insert(symbol, dim);
    }
    ProgramReadBack rb;
    rb.program = program;
    rb.mapping = mapping;
    return rb;
}

ExportedProgram program(const QString &output, const QVector<int> &calls, int callCount, const QVector<int> &rejected = {})
{
    ExportedProgram p;
    p.result.ok = rejected.isEmpty();
    p.result.exported = true;
    p.result.output = output;
    p.calls = calls;
    p.description = QStringLiteral("every call");
    for (int call = 0; call < callCount; ++call)
        p.result.verification << verified(call, rejected.contains(call) ? QStringLiteral("rejected") : QStringLiteral("ok"));
    return p;
}

// One program for all 4 calls: batch [1, ∞], seq_len [2, ∞]; seq_len specialized nowhere.
std::pair<PhasedExportOutcome, QVector<ProgramReadBack>> everyCall()
{
    PhasedExportOutcome outcome;
    outcome.callCount = 4;
    outcome.programs = {program(QStringLiteral("/tmp/demo.pt2"), {0, 1, 2, 3}, 4)};
    outcome.programs[0].result.explanations = {decision(QStringLiteral("guard"), QStringLiteral("batch <= 64"))};
    return {outcome, {readBack({{QStringLiteral("s0"), QStringLiteral("batch"), 1, std::nullopt},
                                {QStringLiteral("s1"), QStringLiteral("seq_len"), 2, std::nullopt}})}};
}

// A narrower re-export: seq_len specialized to 4, calls 2 and 3 rejected and unserved.
std::pair<PhasedExportOutcome, QVector<ProgramReadBack>> partial()
{
    PhasedExportOutcome outcome;
    outcome.callCount = 4;
    outcome.programs = {program(QStringLiteral("/tmp/demo.pt2"), {0, 1}, 4, {2, 3})};
    outcome.unserved = {2, 3};
    outcome.programs[0].result.explanations = {decision(QStringLiteral("guard"), QStringLiteral("batch <= 64")),
                                               decision(QStringLiteral("specialized"), QStringLiteral("seq_len == 4"))};
    return {outcome, {readBack({{QStringLiteral("s0"), QStringLiteral("batch"), 1, 8}})}};
}

const Comparison::Section &section(const Comparison &c, const QString &title)
{
    for (const Comparison::Section &s : c.sections)
        if (s.title == title)
            return s;
    static const Comparison::Section none;
    qWarning("no section %s", qPrintable(title));
    return none;
}

const Comparison::Row *row(const Comparison::Section &s, const QString &item)
{
    for (const Comparison::Row &r : s.rows)
        if (r.item == item)
            return &r;
    return nullptr;
}

} // namespace

class TestComparison : public QObject
{
    Q_OBJECT
private slots:
    void reexportKeepsThePreviousResult();
    void historyKeepsTheLastFew();
    void exportsSideBySide();
    void capturesSideBySide();
    void modelShowsAndFiltersTheDifferences();
};

void TestComparison::reexportKeepsThePreviousResult()
{
    ProjectDocument document;
    ExportResults *results = document.exportResults();
    QSignalSpy historyChanged(results, &ExportResults::historyChanged);
    const auto first = everyCall();
    results->setOutcome(first.first, first.second);
    const auto second = partial();
    results->setOutcome(second.first, second.second);
    QCOMPARE(results->history().size(), 2);
    QCOMPARE(results->history().at(0).number, 1);
    QCOMPARE(results->history().at(0).outcome.programs.first().calls, QVector<int>({0, 1, 2, 3}));
    QCOMPARE(results->history().at(1).outcome.unserved, QVector<int>({2, 3}));
    QCOMPARE(results->history().at(1).readBacks.size(), 1);
    QVERIFY2(results->history().at(1).label().startsWith(QLatin1String("Export 2 (")), qPrintable(results->history().at(1).label()));
    QVERIFY2(results->history().at(1).label().endsWith(QLatin1String("1 program(s), calls 2-3 unserved")),
             qPrintable(results->history().at(1).label()));
    QCOMPARE(historyChanged.count(), 2);
    // A cancelled re-export keeps the last result, and adds nothing to compare.
    PhasedExportOutcome cancelled;
    cancelled.cancelled = true;
    results->setOutcome(cancelled, {});
    QCOMPARE(results->history().size(), 2);
    // Another document starts without history.
    results->clear();
    QVERIFY(results->history().isEmpty());
    results->setOutcome(first.first, first.second);
    QCOMPARE(results->history().first().number, 1);
}

void TestComparison::historyKeepsTheLastFew()
{
    ProjectDocument document;
    ExportResults *results = document.exportResults();
    const auto outcome = everyCall();
    for (int i = 0; i < ExportResults::kHistorySize + 2; ++i)
        results->setOutcome(outcome.first, outcome.second);
    QCOMPARE(results->history().size(), ExportResults::kHistorySize);
    QCOMPARE(results->history().first().number, 3);
    QCOMPARE(results->history().last().number, ExportResults::kHistorySize + 2);
}

void TestComparison::exportsSideBySide()
{
    ExportRecord a, b;
    std::tie(a.outcome, a.readBacks) = everyCall();
    std::tie(b.outcome, b.readBacks) = partial();
    a.number = 1;
    b.number = 2;
    const Comparison c = ExportComparison::make(a, b);
    QVERIFY(c.titleA.startsWith(QLatin1String("Export 1")));

    const Comparison::Section &ranges = section(c, QStringLiteral("Ranges per Dim"));
    QVERIFY(row(ranges, QStringLiteral("batch")) && row(ranges, QStringLiteral("seq_len")));
    QCOMPARE(row(ranges, QStringLiteral("batch"))->a, QStringLiteral("[1, ∞]"));
    QCOMPARE(row(ranges, QStringLiteral("batch"))->b, QStringLiteral("[1, 8]"));
    QVERIFY(row(ranges, QStringLiteral("batch"))->differs);
    QCOMPARE(row(ranges, QStringLiteral("seq_len"))->b, Comparison::none());
    QVERIFY(row(ranges, QStringLiteral("seq_len"))->differs);

    const Comparison::Section &guards = section(c, QStringLiteral("Guards and specializations"));
    QVERIFY(!row(guards, QStringLiteral("guard: batch <= 64"))->differs);
    const Comparison::Row *specialized = row(guards, QStringLiteral("specialized: seq_len == 4"));
    QVERIFY(specialized);
    QCOMPARE(specialized->a, Comparison::none());
    QCOMPARE(specialized->b, QStringLiteral("demo.pt2"));

    const Comparison::Section &calls = section(c, QStringLiteral("Calls served"));
    QCOMPARE(calls.rows.size(), 4);
    QVERIFY(!row(calls, QStringLiteral("call 0"))->differs);
    QCOMPARE(row(calls, QStringLiteral("call 3"))->a, QStringLiteral("demo.pt2"));
    QCOMPARE(row(calls, QStringLiteral("call 3"))->b, QStringLiteral("served by no program"));
    QCOMPARE(calls.differenceCount(), 2);

    const Comparison::Section &verification = section(c, QStringLiteral("Verification"));
    QCOMPARE(row(verification, QStringLiteral("call 1"))->a, QStringLiteral("accepted"));
    QVERIFY(!row(verification, QStringLiteral("call 1"))->differs);
    QVERIFY(row(verification, QStringLiteral("call 2"))->b.startsWith(QLatin1String("rejected")));
    QVERIFY(row(verification, QStringLiteral("call 2"))->differs);

    // An export compared with itself has no differences.
    QCOMPARE(ExportComparison::make(a, a).differenceCount(), 0);
}

void TestComparison::capturesSideBySide()
{
    const Capture a = test::makeCapture(QStringLiteral("input_ids=1x5:i64 attention_mask=1x5 | input_ids=1x7:i64 attention_mask=1x7"));
    const Capture b = test::makeCapture(
        QStringLiteral("input_ids=1x6:i64 pixel_values=1x3x8x8 | input_ids=3x6:i64 pixel_values=3x3x8x8 | input_ids=2x6:i64 pixel_values=2x3x8x8"));
    const Comparison c = CaptureComparison::make(a, b, QStringLiteral("a.safetensors"), QStringLiteral("b.safetensors"));
    QCOMPARE(c.titleB, QStringLiteral("b.safetensors"));
    const Comparison::Section &capture = section(c, QStringLiteral("Capture"));
    QCOMPARE(row(capture, QStringLiteral("calls"))->a, QStringLiteral("2"));
    QCOMPARE(row(capture, QStringLiteral("calls"))->b, QStringLiteral("3"));

    const Comparison::Section &leaves = section(c, QStringLiteral("Input leaves"));
    QCOMPARE(row(leaves, QStringLiteral("input_ids"))->a, QStringLiteral("1 x [5..7]"));
    QCOMPARE(row(leaves, QStringLiteral("input_ids"))->b, QStringLiteral("[1..3] x 6"));
    QCOMPARE(row(leaves, QStringLiteral("attention_mask"))->b, Comparison::none()); // missing in B
    QCOMPARE(row(leaves, QStringLiteral("pixel_values"))->a, Comparison::none());   // new in B
    QCOMPARE(row(leaves, QStringLiteral("pixel_values"))->b, QStringLiteral("[1..3] x 3 x 8 x 8"));
    QCOMPARE(leaves.differenceCount(), 3);

    const Comparison::Section &varying = section(c, QStringLiteral("Dims that vary"));
    const Comparison::Row *batch = row(varying, QStringLiteral("input_ids dim 0"));
    const Comparison::Row *length = row(varying, QStringLiteral("input_ids dim 1"));
    QVERIFY(batch && length);
    QCOMPARE(batch->a, QStringLiteral("constant 1"));
    QCOMPARE(batch->b, QStringLiteral("varies 1..3"));
    QVERIFY(batch->differs);
    QCOMPARE(length->a, QStringLiteral("varies 5..7"));
    QCOMPARE(length->b, QStringLiteral("constant 6"));
    QVERIFY(length->differs);
    QVERIFY(!row(varying, QStringLiteral("pixel_values dim 2"))); // constant in both
}

void TestComparison::modelShowsAndFiltersTheDifferences()
{
    ComparisonModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ExportRecord a, b;
    std::tie(a.outcome, a.readBacks) = everyCall();
    std::tie(b.outcome, b.readBacks) = partial();
    const Comparison c = ExportComparison::make(a, b);
    model.setComparison(c);
    QCOMPARE(model.rowCount(), c.sections.size());
    int rangesRow = -1;
    for (int i = 0; i < model.rowCount(); ++i)
        if (model.index(i, ComparisonModel::ItemColumn).data().toString().startsWith(QLatin1String("Ranges per Dim")))
            rangesRow = i;
    QVERIFY(rangesRow >= 0);
    const QModelIndex ranges = model.index(rangesRow, 0);
    QCOMPARE(model.index(rangesRow, ComparisonModel::ItemColumn).data().toString(), QStringLiteral("Ranges per Dim (2 differ)"));
    QCOMPARE(model.index(rangesRow, ComparisonModel::MarkColumn).data().toString(), ComparisonModel::mark());
    QCOMPARE(model.rowCount(ranges), 2);
    const QModelIndex batch = model.index(0, ComparisonModel::AColumn, ranges);
    QCOMPARE(batch.parent(), ranges);
    QCOMPARE(batch.data().toString(), QStringLiteral("[1, ∞]"));
    QVERIFY(batch.data(ComparisonModel::DiffersRole).toBool());
    QVERIFY(batch.data(Qt::FontRole).value<QFont>().bold());
    QVERIFY(model.headerData(ComparisonModel::AColumn, Qt::Horizontal).toString().startsWith(QLatin1String("A: Export")));

    // Differences only: the rows that are the same go, the sections stay.
    int callsRow = -1;
    for (int i = 0; i < model.rowCount(); ++i)
        if (model.index(i, ComparisonModel::ItemColumn).data().toString().startsWith(QLatin1String("Calls served")))
            callsRow = i;
    QCOMPARE(model.rowCount(model.index(callsRow, 0)), 4);
    model.setDifferencesOnly(true);
    QCOMPARE(model.rowCount(), c.sections.size());
    QCOMPARE(model.rowCount(model.index(callsRow, 0)), 2);
    QCOMPARE(model.index(0, ComparisonModel::ItemColumn, model.index(callsRow, 0)).data().toString(), QStringLiteral("call 2"));
    model.setComparison(ExportComparison::make(a, a));
    for (int i = 0; i < model.rowCount(); ++i)
        QCOMPARE(model.rowCount(model.index(i, 0)), 0);
}

DIMSCOPE_TEST_MAIN_IMPL(TestComparison, QGuiApplication, {})
#include "tst_comparison.moc"
