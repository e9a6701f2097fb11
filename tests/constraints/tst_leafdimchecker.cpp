// SPDX-License-Identifier: GPL-3.0-or-later
#include "capturebuilder.h"
#include "constraints/constraintset.h"
#include "constraints/leafdimchecker.h"
#include "constraints/resolveddims.h"
#include "inference/shapetable.h"
#include "constraints/violationcollector.h"

#include "deterministictestmain.h"

using namespace dimscope;
using namespace dimscope::test;

// ConstraintValidator's steps: resolving the set's Dims, checking one leaf at a
// time, and collecting a capped number of violations.
class TestLeafDimChecker : public QObject
{
    Q_OBJECT
private slots:
    void resolvedDims();
    void negativeDerivedRange();
    void unlistedLeafStaysStatic();
    void staticComparesWithFirstPresentCall();
    void autoAcceptsAnySize();
    void sharedRootNamesTheFirstDim();
    void rankMismatchStopsTheLeaf();
    void collectorCapsButCounts();
};

using Rule = ConstraintViolation::Rule;

static QStringList messagesOf(const ValidationReport &report)
{
    QStringList out;
    for (const ConstraintViolation &v : report.violations)
        out << v.message;
    return out;
}

void TestLeafDimChecker::resolvedDims()
{
    ConstraintSet set;
    QCOMPARE(set.addRootDim(QStringLiteral("a"), 3, 10), QString());
    QCOMPARE(set.addRootDim(QStringLiteral("b")), QString());
    QCOMPARE(set.addDerivedDim(QStringLiteral("c"), QStringLiteral("b"), 2, 1), QString());
    ValidationReport report;
    ViolationCollector out(&report, 10);
    const ResolvedDims dims(set, &out);

    QCOMPARE(dims.rootCount(), 2);
    QCOMPARE(dims.at(0).root, 0);
    QCOMPARE(dims.at(0).min, qint64(3));
    QCOMPARE(dims.at(0).max, qint64(10));
    QCOMPARE(dims.at(1).root, 1);
    QCOMPARE(dims.at(1).max, std::numeric_limits<qint64>::max()); // no max: unbounded
    // A derived Dim checks its root's value slot and range.
    const ResolvedDim &c = dims.at(2);
    QVERIFY(c.derived);
    QCOMPARE(c.root, 1);
    QCOMPARE(c.rootName, QStringLiteral("b"));
    QCOMPARE(c.a, qint64(2));
    QCOMPARE(c.b, qint64(1));
    QCOMPARE(c.relation, QStringLiteral("2*b + 1"));
    QVERIFY(report.ok());
}

void TestLeafDimChecker::negativeDerivedRange()
{
    ConstraintSet set;
    QCOMPARE(set.addRootDim(QStringLiteral("x"), 2), QString());
    QCOMPARE(set.addDerivedDim(QStringLiteral("y"), QStringLiteral("x"), 1, -3), QString());
    ValidationReport report;
    ViolationCollector out(&report, 10);
    const ResolvedDims dims(set, &out);
    QCOMPARE(report.total, 1);
    QCOMPARE(report.violations.first().rule, Rule::DerivedRange);
    QCOMPARE(report.violations.first().dimName, QStringLiteral("y"));
    QCOMPARE(report.violations.first().message,
             QStringLiteral("derived Dim 'y' = x - 3 goes below 0 for x = 2 (the min of 'x'): torch.export rejects it; "
                            "set the min of 'x' to at least 3"));
}

void TestLeafDimChecker::unlistedLeafStaysStatic()
{
    const ShapeTable table(makeCapture(QStringLiteral("x=2x3 | x=5x3 | x=2x3")));
    const ConstraintSet set;
    ValidationReport report;
    ViolationCollector out(&report, 10);
    const ResolvedDims dims(set, &out);
    LeafDimChecker checker(table, set, dims, &out);
    checker.checkLeaf(0, nullptr);
    QCOMPARE(messagesOf(report), QStringList{QStringLiteral("call 1, x dim 0 = 5: static, but 2 in call 0")});
    QCOMPARE(report.violations.first().rule, Rule::StaticValue);
}

void TestLeafDimChecker::staticComparesWithFirstPresentCall()
{
    const ShapeTable table(makeCapture(QStringLiteral("x=2 m=- | x=2 m=4 | x=2 m=5")));
    ConstraintSet set;
    QCOMPARE(set.setLeaf(QStringLiteral("m"), {DimAssignment::makeStatic()}), QString());
    ValidationReport report;
    ViolationCollector out(&report, 10);
    const ResolvedDims dims(set, &out);
    LeafDimChecker checker(table, set, dims, &out);
    const int m = table.indexOf(QStringLiteral("m"));
    checker.checkLeaf(m, set.leaf(QStringLiteral("m")));
    QCOMPARE(messagesOf(report), QStringList{QStringLiteral("call 2, m dim 0 = 5: static, but 4 in call 1")});
}

void TestLeafDimChecker::autoAcceptsAnySize()
{
    const ShapeTable table(makeCapture(QStringLiteral("x=2x3 | x=5x1 | x=0x9")));
    ConstraintSet set;
    QCOMPARE(set.setLeaf(QStringLiteral("x"), {DimAssignment::makeAuto(), DimAssignment::makeDynamic()}), QString());
    ValidationReport report;
    ViolationCollector out(&report, 10);
    const ResolvedDims dims(set, &out);
    LeafDimChecker checker(table, set, dims, &out);
    checker.checkLeaf(0, set.leaf(QStringLiteral("x")));
    QVERIFY(report.ok());
}

// The dims of one root Dim are compared across leaves: the message names the dim
// that gave the root its value first.
void TestLeafDimChecker::sharedRootNamesTheFirstDim()
{
    const ShapeTable table(makeCapture(QStringLiteral("x=2 y=2 | x=3 y=4")));
    ConstraintSet set;
    QCOMPARE(set.addRootDim(QStringLiteral("n"), 2), QString());
    QCOMPARE(set.setLeaf(QStringLiteral("x"), {DimAssignment::named(QStringLiteral("n"))}), QString());
    QCOMPARE(set.setLeaf(QStringLiteral("y"), {DimAssignment::named(QStringLiteral("n"))}), QString());
    ValidationReport report;
    ViolationCollector out(&report, 10);
    const ResolvedDims dims(set, &out);
    LeafDimChecker checker(table, set, dims, &out);
    checker.checkLeaf(0, set.leaf(QStringLiteral("x")));
    QVERIFY(report.ok()); // x alone agrees with itself
    checker.checkLeaf(1, set.leaf(QStringLiteral("y")));
    QCOMPARE(messagesOf(report),
             QStringList{QStringLiteral("call 1, y dim 0 = 4: Dim 'n' is 3 there (x dim 0); all its dimensions must be equal")});
    QCOMPARE(report.violations.first().rule, Rule::SharedDim);
}

void TestLeafDimChecker::rankMismatchStopsTheLeaf()
{
    const ShapeTable table(makeCapture(QStringLiteral("x=- | x=2x3 | x=5x3")));
    ConstraintSet set;
    QCOMPARE(set.setLeaf(QStringLiteral("x"), {DimAssignment::makeStatic()}), QString());
    ValidationReport report;
    ViolationCollector out(&report, 10);
    const ResolvedDims dims(set, &out);
    LeafDimChecker checker(table, set, dims, &out);
    checker.checkLeaf(0, set.leaf(QStringLiteral("x")));
    // Only the rank: dim 0 changing while "static" is not reported on top of it.
    QCOMPARE(messagesOf(report),
             QStringList{QStringLiteral("x has rank 2 in the capture but the constraint set gives it 1 dimension(s)")});
    QCOMPARE(report.violations.first().call, 1); // the first call that has x
}

void TestLeafDimChecker::collectorCapsButCounts()
{
    ValidationReport report;
    ViolationCollector out(&report, 2);
    int built = 0;
    for (int c = 0; c < 5; ++c)
        out.add(Rule::StaticValue, c, QStringLiteral("x"), 0, 3, {}, [&] {
            ++built;
            return QStringLiteral("call %1").arg(c);
        });
    QCOMPARE(report.total, 5);
    QCOMPARE(messagesOf(report), (QStringList{QStringLiteral("call 0"), QStringLiteral("call 1")}));
    QCOMPARE(built, 2); // messages of the violations dropped are never built
}

DIMSCOPE_GUILESS_TEST_MAIN(TestLeafDimChecker)
#include "tst_leafdimchecker.moc"
