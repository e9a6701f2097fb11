// SPDX-License-Identifier: GPL-3.0-or-later
#include "capturebuilder.h"
#include "constraintsummary.h"
#include "groupfixture.h"
#include "inference/derivedrelations.h"
#include "inference/dimobservations.h"
#include "inference/dimranges.h"
#include "inference/proposedconstraints.h"
#include "inference/specializationwarnings.h"

#include "deterministictestmain.h"

using namespace dimscope;
using namespace dimscope::test;

// ShapeInference's last steps: the constraint set from the groups (with Dim.AUTO for
// the Dims that are 0 or 1 in the example call), the 0/1 warnings, and the
// per-dimension observations.
class TestProposedConstraints : public QObject
{
    Q_OBJECT
private slots:
    void constraintSet_data();
    void constraintSet();
    void rowDimNames();
    void specializationWarnings_data();
    void specializationWarnings();
    void observations();
};

// The groups of a capture after derived relations and ranges, as infer() has them
// when it builds the set.
static QVector<DimGroup> finishedGroups(const ShapeTable &table)
{
    QVector<DimGroup> groups = namedGroups(table);
    deriveRelations(&groups);
    proposeDimRanges(&groups);
    return groups;
}

void TestProposedConstraints::constraintSet_data()
{
    QTest::addColumn<QString>("capture");
    QTest::addColumn<int>("exampleCall");
    QTest::addColumn<QString>("autoGroups"); // their names
    QTest::addColumn<QString>("dims");
    QTest::addColumn<QString>("leaves");

    QTest::newRow("roots and a derived Dim, in group order")
        << "x=5 y=3 | x=6 y=4 | x=9 y=7" << 0 << "" << "x_dim0=y_dim0 + 2 y_dim0[2,oo]" << "x(x_dim0) y(y_dim0)";
    QTest::newRow("a shared Dim names every member")
        << "a=2x3 b=3x2 | a=5x3 b=3x5" << 0 << "" << "a_dim0[2,oo]" << "a(a_dim0,static) b(static,a_dim0)";
    QTest::newRow("1 in the example call: Dim.AUTO")
        << "x=1x4 | x=3x4 | x=5x4" << 0 << "batch" << "" << "x(auto,static)";
    QTest::newRow("the same capture from another example call")
        << "x=1x4 | x=3x4 | x=5x4" << 1 << "" << "batch[1,oo]" << "x(batch,static)";
    QTest::newRow("a Dim derived from an auto Dim becomes a root")
        << "x=1 y=3 | x=2 y=5 | x=4 y=9" << 0 << "x_dim0" << "y_dim0[2,oo]" << "x(auto) y(y_dim0)";
}

void TestProposedConstraints::constraintSet()
{
    QFETCH(QString, capture);
    QFETCH(int, exampleCall);
    QFETCH(QString, autoGroups);
    QFETCH(QString, dims);
    QFETCH(QString, leaves);

    const ShapeTable table(makeCapture(capture));
    const QVector<DimGroup> groups = finishedGroups(table);
    const QVector<int> autos = ProposedConstraints::autoGroupsAt(groups, exampleCall);
    QStringList autoNames;
    for (int g : autos)
        autoNames << groups[g].name;
    QCOMPARE(autoNames.join(QLatin1Char(' ')), autoGroups);

    const ConstraintSet set = ProposedConstraints::build(table, groups, autos);
    QCOMPARE(summarizeDims(set), dims);
    QCOMPARE(summarizeLeaves(set), leaves);
    QVERIFY2(set.checkInvariants().isEmpty(), qPrintable(set.checkInvariants()));
}

void TestProposedConstraints::rowDimNames()
{
    const ShapeTable table(makeCapture(QStringLiteral("x=1x4x3 y=7 | x=3x4x5 y=7 | x=5x4x6 y=7")));
    const QVector<DimGroup> groups = finishedGroups(table);
    const QVector<QString> names = ProposedConstraints::rowDimNames(table, groups, ProposedConstraints::autoGroupsAt(groups, 0));
    QCOMPARE(names, (QVector<QString>{QStringLiteral("auto"), QStringLiteral(""), QStringLiteral("x_dim2"), QStringLiteral("")}));
}

void TestProposedConstraints::specializationWarnings_data()
{
    QTest::addColumn<QString>("capture");
    QTest::addColumn<int>("exampleCall");
    QTest::addColumn<QStringList>("texts");
    QTest::addColumn<QVector<int>>("calls"); // of the first warning

    QTest::newRow("a dim that is 0 or 1 in some calls, exported from a call where it is not")
        << "x=0x4 | x=1x4 | x=3x4" << 2
        << QStringList{QStringLiteral("Dim 'batch' (x dim 0) is 0 or 1 in call(s) 0, 1: torch.export specializes sizes 0 and 1; "
                       "dimscope exports from call 2, where it is >= 2; check that the exported program accepts the "
                       "calls with 0 or 1 (replay them), or drop those sizes from the range")}
        << QVector<int>{0, 1};
    QTest::newRow("a dim that is 1 in the example call itself")
        << "input_ids=2x3 | input_ids=2x1 | input_ids=2x1" << 1
        << QStringList{QStringLiteral("Dim 'seq_len' (input_ids dim 1) is 1 in call(s) 1, 2: torch.export specializes sizes 0 and 1; "
                       "it is 1 in the example call 1 (no call has every dynamic size >= 2), so it is proposed as "
                       "Dim.AUTO and that export will specialize it. Capture a call where it is >= 2 next to the "
                       "other inputs to keep it dynamic")}
        << QVector<int>{1, 2};
    QTest::newRow("a group of several members")
        << "a=2x1 b=1x2 | a=5x1 b=1x5 | a=1x1 b=1x1" << 0
        << QStringList{QStringLiteral("Dim 'a_dim0' (a dim 0, +1 more) is 1 in call(s) 2: torch.export specializes sizes 0 and 1; "
                       "dimscope exports from call 0, where it is >= 2; check that the exported program accepts the "
                       "calls with 1 (replay them), or drop those sizes from the range")}
        << QVector<int>{2};
    QTest::newRow("every size >= 2") << "x=2x4 | x=3x4" << 0 << QStringList{} << QVector<int>{};
}

void TestProposedConstraints::specializationWarnings()
{
    QFETCH(QString, capture);
    QFETCH(int, exampleCall);
    QFETCH(QStringList, texts);
    QFETCH(QVector<int>, calls);

    const ShapeTable table(makeCapture(capture));
    const QVector<DimGroup> groups = finishedGroups(table);
    const QVector<InferenceMessage> warnings =
        dimscope::specializationWarnings(table, groups, ProposedConstraints::autoGroupsAt(groups, exampleCall), exampleCall);
    QStringList have;
    for (const InferenceMessage &m : warnings) {
        QCOMPARE(m.severity, InferenceMessage::Severity::Warning);
        have << m.text;
    }
    QCOMPARE(have, texts);
    if (!warnings.isEmpty())
        QCOMPARE(warnings.first().calls, calls);
}

void TestProposedConstraints::observations()
{
    const ShapeTable table(makeCapture(QStringLiteral("x=2x3 m=- | x=2x4 m=2x4 | x=2x5 m=2x5")));
    const QVector<DimObservation> obs = dimObservations(table, {QString(), QStringLiteral("x_dim1"), QString(), QStringLiteral("auto")});
    QCOMPARE(obs.size(), 4);
    QCOMPARE(obs[1].path, QStringLiteral("x"));
    QCOMPARE(obs[1].dim, 1);
    QCOMPARE(obs[1].values, (QVector<qint64>{3, 4, 5}));
    QVERIFY(obs[1].dynamic);
    QCOMPARE(obs[1].dimName, QStringLiteral("x_dim1"));
    QVERIFY(!obs[0].dynamic);
    QCOMPARE(obs[3].path, QStringLiteral("m"));
    QCOMPARE(obs[3].leaf, table.indexOf(QStringLiteral("m")));
    QCOMPARE(obs[3].values, (QVector<qint64>{-1, 4, 5})); // -1: the call does not pass m
    QVERIFY(obs[3].dynamic);
    QCOMPARE(obs[3].dimName, QStringLiteral("auto"));
}

DIMSCOPE_GUILESS_TEST_MAIN(TestProposedConstraints)
#include "tst_proposedconstraints.moc"
