// SPDX-License-Identifier: GPL-3.0-or-later
// ExportHints: what to check before an export, from the captured calls and the
// constraints: two Dims equal in every call (merge candidates) and each call as the
// example input, with the Dims torch would specialize there (size 0 or 1).
#include "capturebuilder.h"
#include "constraints/constraintset.h"
#include "export/examplecalladvice.h"
#include "export/exporthints.h"
#include "inference/shapetable.h"

#include "deterministictestmain.h"

using namespace dimscope;
using namespace dimscope::test;

namespace {

DimAssignment named(const char *name) { return DimAssignment::named(QLatin1String(name)); }

void must(const QString &error)
{
    if (!error.isEmpty())
        qFatal("building the test's constraints: %s", qPrintable(error));
}

// x: (batch, q_len), y: (batch, kv_len), p: (batch, past_len), m: (batch, total_len)
// with total_len = past_len + 1, as a decoder's inputs.
ConstraintSet decodeSet()
{
    ConstraintSet set;
    for (const char *name : {"batch", "q_len", "kv_len", "past_len"})
        must(set.addRootDim(QLatin1String(name)));
    must(set.addDerivedDim(QStringLiteral("total_len"), QStringLiteral("past_len"), 1, 1));
    must(set.setLeaf(QStringLiteral("x"), {named("batch"), named("q_len")}));
    must(set.setLeaf(QStringLiteral("y"), {named("batch"), named("kv_len")}));
    must(set.setLeaf(QStringLiteral("p"), {named("batch"), named("past_len")}));
    must(set.setLeaf(QStringLiteral("m"), {named("batch"), named("total_len")}));
    return set;
}

} // namespace

class TestExportHints : public QObject
{
    Q_OBJECT
private slots:
    void dimsEqualInEveryCallAreMergeCandidates();
    void equalOnceOrConstantIsNoCandidate();
    void callsListSizesAndZeroOrOne();
    void aBetterExampleCallIsProposed();
    void noProposalWithoutABetterCall();
};

void TestExportHints::dimsEqualInEveryCallAreMergeCandidates()
{
    // q_len == kv_len in every call (and they vary); batch differs from both in call 1.
    const ShapeTable table(makeCapture(QStringLiteral("x=2x5 y=2x5 p=2x0 m=2x1 | x=3x7 y=3x7 p=3x5 m=3x6 | x=2x9 y=2x9 p=2x7 m=2x8")));
    const ExportHints hints = ExportHints::compute(table, decodeSet());
    QCOMPARE(hints.mergeCandidates().size(), 1);
    const MergeCandidate &m = hints.mergeCandidates().first();
    QCOMPARE(m.first, QStringLiteral("q_len"));
    QCOMPARE(m.second, QStringLiteral("kv_len"));
    QCOMPARE(m.calls, 3);
}

void TestExportHints::equalOnceOrConstantIsNoCandidate()
{
    // q_len == kv_len only in call 0; batch == 2 == past_len constantly (no variation
    // in either: no evidence they are one).
    const ShapeTable table(makeCapture(QStringLiteral("x=2x5 y=2x5 p=2x2 m=2x3 | x=2x7 y=2x8 p=2x2 m=2x3")));
    const ExportHints hints = ExportHints::compute(table, decodeSet());
    QVERIFY(hints.mergeCandidates().isEmpty());
    // One call: everything is "equal in every call", nothing is a candidate.
    const ShapeTable one(makeCapture(QStringLiteral("x=4x4 y=4x4 p=4x4 m=4x5")));
    QVERIFY(ExportHints::compute(one, decodeSet()).mergeCandidates().isEmpty());
}

void TestExportHints::callsListSizesAndZeroOrOne()
{
    // Call 0 is a prefill (past_len 0, total_len 1), call 1 a decode step (q_len 1).
    const ShapeTable table(makeCapture(QStringLiteral("x=2x5 y=2x6 p=2x0 m=2x1 | x=2x1 y=2x6 p=2x5 m=2x6 | x=2x3 y=2x4 p=2x5 m=2x6")));
    const ExportHints hints = ExportHints::compute(table, decodeSet());
    QCOMPARE(hints.calls().size(), 3);
    const ExampleCallHint &prefill = hints.calls().at(0);
    QCOMPARE(prefill.sizesText(), QStringLiteral("batch=2, q_len=5, kv_len=6, past_len=0, total_len=1"));
    QCOMPARE(prefill.zeroOrOne, (QStringList{QStringLiteral("past_len = 0"), QStringLiteral("total_len = 1")}));
    QCOMPARE(hints.calls().at(1).zeroOrOne, QStringList{QStringLiteral("q_len = 1")});
    QVERIFY(hints.calls().at(2).zeroOrOne.isEmpty());
    // The automatic example is the call without 0 or 1, and only it is marked.
    QCOMPARE(hints.automaticCall(), 2);
    QVERIFY(hints.calls().at(2).automatic);
    QVERIFY(!hints.calls().at(0).automatic && !hints.calls().at(1).automatic);
}

// Issue 13, problem 2: exported with the prefill as the example, torch asks for
// `past_len = 0`; the advice names a call where no Dim is 0 or 1.
void TestExportHints::aBetterExampleCallIsProposed()
{
    const ShapeTable table(makeCapture(QStringLiteral("x=2x5 y=2x6 p=2x0 m=2x1 | x=2x1 y=2x6 p=2x5 m=2x6 | x=2x3 y=2x4 p=2x5 m=2x6")));
    const ExportHints hints = ExportHints::compute(table, decodeSet());
    const ExampleCallAdvice fromPrefill = ExampleCallAdvice::make(hints, 0);
    QVERIFY(fromPrefill.isValid());
    QCOMPARE(fromPrefill.proposedCall, 2);
    QCOMPARE(fromPrefill.text(), QStringLiteral("The export traced call 0, where past_len = 0, total_len = 1 (torch fixes sizes 0 "
                                                "and 1 to constants). Call 2 has no Dim at 0 or 1: export with it as the "
                                                "example call."));
    // Without call 2, the decode call is still better than the prefill: fewer at 0 or 1.
    const ShapeTable two(makeCapture(QStringLiteral("x=2x5 y=2x6 p=2x0 m=2x1 | x=2x1 y=2x6 p=2x5 m=2x6")));
    const ExampleCallAdvice fewer = ExampleCallAdvice::make(ExportHints::compute(two, decodeSet()), 0);
    QCOMPARE(fewer.proposedCall, 1);
    QVERIFY2(fewer.text().endsWith(QStringLiteral("Call 1 has fewer (q_len = 1): export with it as the example call.")),
             qPrintable(fewer.text()));
}

void TestExportHints::noProposalWithoutABetterCall()
{
    const ShapeTable table(makeCapture(QStringLiteral("x=2x5 y=2x6 p=2x0 m=2x1 | x=2x1 y=2x6 p=2x5 m=2x6 | x=2x3 y=2x4 p=2x5 m=2x6")));
    const ExportHints hints = ExportHints::compute(table, decodeSet());
    QVERIFY(!ExampleCallAdvice::make(hints, 2).isValid()); // no Dim at 0 or 1 there already
    QVERIFY(!ExampleCallAdvice::make(hints, 7).isValid()); // no such call
    QVERIFY(ExampleCallAdvice::make(hints, 2).text().isEmpty());
    // Every call has one Dim at 0 or 1: none is better.
    const ShapeTable even(makeCapture(QStringLiteral("x=2x1 y=2x6 p=2x5 m=2x6 | x=2x4 y=2x6 p=2x1 m=2x2")));
    QVERIFY(!ExampleCallAdvice::make(ExportHints::compute(even, decodeSet()), 0).isValid());
}

DIMSCOPE_GUILESS_TEST_MAIN(TestExportHints)
#include "tst_exporthints.moc"
