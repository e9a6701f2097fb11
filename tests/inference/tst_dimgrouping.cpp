// SPDX-License-Identifier: GPL-3.0-or-later
#include "capturebuilder.h"
#include "groupfixture.h"
#include "inference/dimgrouping.h"
#include "inference/dimgroupnames.h"
#include "inference/dynamicdims.h"

#include "deterministictestmain.h"

using namespace dimscope;
using namespace dimscope::test;

// ShapeInference's grouping (which dynamic dims share one Dim) and naming steps.
class TestDimGrouping : public QObject
{
    Q_OBJECT
private slots:
    void grouping_data();
    void grouping();
    void mergedValues();
    void names_data();
    void names();
};

void TestDimGrouping::grouping_data()
{
    QTest::addColumn<QString>("capture");
    QTest::addColumn<QString>("mode"); // observed | all | batch:all
    QTest::addColumn<QString>("groups");

    QTest::newRow("two leaves whose dim 1 changes together form one group")
        << "a=2x3 b=4x3 | a=2x5 b=4x5 | a=2x6 b=4x6" << "observed" << "a:1 b:1";
    QTest::newRow("different value sequences are different groups")
        << "a=2x3 b=3x2 c=4 | a=5x3 b=3x5 c=4 | a=7x3 b=3x7 c=9" << "observed" << "a:0 b:1 | c:0";
    QTest::newRow("a leaf missing from some calls joins the group its overlap matches")
        << "x=2x3 m=- | x=2x4 m=2x4 | x=2x5 m=2x5" << "observed" << "x:1 m:1";
    QTest::newRow("an overlap that differs keeps them apart")
        << "x=2x3 m=- | x=2x4 m=2x4 | x=2x5 m=2x7" << "observed" << "x:1 | m:1";
    QTest::newRow("an overlap where the size does not change keeps them apart")
        << "x=2x3 m=- | x=2x4 m=- | x=2x5 m=2x5 | x=- m=2x6" << "observed" << "x:1 | m:1";
    QTest::newRow("forced constant batch dims of one size share a group")
        << "x=2x3 y=2x5 z=4x1 | x=2x4 y=2x5 z=4x1" << "batch:all" << "x:0 y:0 | x:1 | z:0";
    QTest::newRow("all dynamic: constant dims are groups of their own")
        << "x=2x3 y=2 | x=2x3 y=2" << "all" << "x:0 | x:1 | y:0";
}

void TestDimGrouping::grouping()
{
    QFETCH(QString, capture);
    QFETCH(QString, mode);
    QFETCH(QString, groups);

    const InferenceOptions options = optionsFor(mode);
    const ShapeTable table(makeCapture(capture));
    const QVector<DimGroup> found = groupDynamicDims(table, DynamicDims::find(table, options), options.forcesSomeBatch());
    QStringList have;
    for (const DimGroup &g : found)
        have << describeMembers(table, g);
    QCOMPARE(have.join(QStringLiteral(" | ")), groups);
}

// A group's values are its members' merged: known wherever one member is.
void TestDimGrouping::mergedValues()
{
    const ShapeTable table(makeCapture(QStringLiteral("x=2x3 m=- | x=2x4 m=2x4 | x=2x1 m=2x1 | x=2x8 m=2x8")));
    const QVector<DimGroup> groups = groupDynamicDims(table, DynamicDims::find(table, {}), false);
    QCOMPARE(groups.size(), 1);
    QCOMPARE(groups[0].seq, (QVector<qint64>{3, 4, 1, 8}));
    QVERIFY(groups[0].varying);
    QCOMPARE(groups[0].minValue, qint64(1));
    QCOMPARE(groups[0].meanValue, 4.0);
}

void TestDimGrouping::names_data()
{
    QTest::addColumn<QString>("capture");
    QTest::addColumn<QString>("groups");

    QTest::newRow("conventional roles; seq_len outranks the mask's total_len")
        << "input_ids=2x3 attention_mask=2x3 | input_ids=3x5 attention_mask=3x5"
        << "batch(input_ids:0 attention_mask:0) | seq_len(input_ids:1 attention_mask:1)";
    QTest::newRow("a mask's last dim on its own is total_len")
        << "input_ids=2x1 attention_mask=2x4 | input_ids=2x1 attention_mask=2x5 | input_ids=2x1 attention_mask=2x6"
        << "total_len(attention_mask:1)";
    QTest::newRow("a role already taken falls back to <leaf>_dim<i>")
        << "input_ids=2x3 attention_mask=3x3 | input_ids=5x3 attention_mask=7x3"
        << "batch(input_ids:0) | attention_mask_dim0(attention_mask:0)";
    QTest::newRow("no role: <leaf>_dim<i> of the first member")
        << "a=2x3 b=3x2 | a=5x3 b=3x5" << "a_dim0(a:0 b:1)";
}

void TestDimGrouping::names()
{
    QFETCH(QString, capture);
    QFETCH(QString, groups);

    const ShapeTable table(makeCapture(capture));
    QVector<DimGroup> found = groupDynamicDims(table, DynamicDims::find(table, {}), false);
    nameDimGroups(table, &found);
    QCOMPARE(describeGroups(table, found), groups);
}

DIMSCOPE_GUILESS_TEST_MAIN(TestDimGrouping)
#include "tst_dimgrouping.moc"
