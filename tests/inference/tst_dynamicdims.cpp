// SPDX-License-Identifier: GPL-3.0-or-later
#include "capturebuilder.h"
#include "groupfixture.h"
#include "inference/dynamicdims.h"
#include "inference/inferenceoptions.h"
#include "inference/shapetable.h"
#include "inference/singlecallleaves.h"

#include "deterministictestmain.h"

using namespace dimscope;
using namespace dimscope::test;

// The first steps of ShapeInference: which leaf dimensions are dynamic, and which
// inputs too few calls have to tell.
class TestDynamicDims : public QObject
{
    Q_OBJECT
private slots:
    void dynamicDims_data();
    void dynamicDims();
    void varyingIsOnlyWhatChanges();
    void singleCallLeaves_data();
    void singleCallLeaves();
};

// "x:0 y:1" : the dynamic rows as leaf:dim.
static QString describeRows(const ShapeTable &table, const QVector<int> &rows)
{
    QStringList out;
    for (int r : rows)
        out << QStringLiteral("%1:%2").arg(table.leaf(table.leafOfRow(r)).path).arg(table.dimOfRow(r));
    return out.join(QLatin1Char(' '));
}

void TestDynamicDims::dynamicDims_data()
{
    QTest::addColumn<QString>("capture");
    QTest::addColumn<QString>("mode"); // observed | all | batch:all | batch:NAME
    QTest::addColumn<QString>("dynamic");

    QTest::newRow("a dim whose size changes") << "x=2x3 | x=5x3" << "observed" << "x:0";
    QTest::newRow("a call without the leaf is no change")
        << "x=2x3 m=- | x=2x3 m=2x5 | x=2x3 m=2x7" << "observed" << "m:1";
    QTest::newRow("a constant batch forced for every input")
        << "x=2x3 y=4 | x=2x5 y=4" << "batch:all" << "x:0 x:1 y:0";
    QTest::newRow("a constant batch forced for one input") << "x=2x3 y=4x1 | x=2x5 y=4x1" << "batch:y" << "x:1 y:0";
    QTest::newRow("a constant batch forced for one leaf")
        << "c=cache(1:1x2x3x4) | c=cache(1:1x2x5x4)" << "batch:c.value_cache[0]"
        << "c.key_cache[0]:2 c.value_cache[0]:0 c.value_cache[0]:2";
    QTest::newRow("all dynamic") << "x=2x3 y=2 | x=2x3 y=2" << "all" << "x:0 x:1 y:0";
    QTest::newRow("a leaf whose rank changes stays static") << "x=2x3 | x=2x3x4 | x=2x5" << "all" << "";
    QTest::newRow("one call: nothing changes") << "x=2x3" << "observed" << "";
}

void TestDynamicDims::dynamicDims()
{
    QFETCH(QString, capture);
    QFETCH(QString, mode);
    QFETCH(QString, dynamic);

    const ShapeTable table(makeCapture(capture));
    const DynamicDims found = DynamicDims::find(table, optionsFor(mode));
    QCOMPARE(describeRows(table, found.rows), dynamic);
    QCOMPARE(found.dynamic.size(), table.dimRowCount());
    for (int r = 0; r < table.dimRowCount(); ++r)
        QCOMPARE(bool(found.dynamic[r]), found.rows.contains(r));
}

// Forced dims are dynamic without varying: grouping treats the two differently.
void TestDynamicDims::varyingIsOnlyWhatChanges()
{
    const ShapeTable table(makeCapture(QStringLiteral("x=2x3 | x=2x5")));
    InferenceOptions batch;
    batch.batchForAll = true;
    const DynamicDims found = DynamicDims::find(table, batch);
    QCOMPARE(describeRows(table, found.rows), QStringLiteral("x:0 x:1"));
    QCOMPARE(found.varying, (QVector<quint8>{0, 1}));
}

void TestDynamicDims::singleCallLeaves_data()
{
    QTest::addColumn<QString>("capture");
    QTest::addColumn<QStringList>("texts");
    QTest::addColumn<QStringList>("leaves"); // of the first warning
    QTest::addColumn<QVector<int>>("calls"); // of the first warning

    QTest::newRow("an input passed once")
        << "x=2x3 m=- | x=3x3 m=4x4"
        << QStringList{QStringLiteral("'m' is seen in a single call (call 1): its dimensions cannot be judged and are proposed "
                       "static. Capture more calls that pass 'm', or mark its dynamic dimensions by hand")}
        << QStringList{QStringLiteral("m")} << QVector<int>{1};
    QTest::newRow("an input of several leaves, passed once")
        << "x=2x3 c=cache(2:1x2x3x4) | x=3x3 c=- | x=4x3 c=-"
        << QStringList{QStringLiteral("'c' (4 leaves) is seen in a single call (call 0): its dimensions cannot be judged and are "
                       "proposed static. Capture more calls that pass 'c', or mark its dynamic dimensions by hand")}
        << QStringList{QStringLiteral("c.key_cache[0]"), QStringLiteral("c.value_cache[0]"), QStringLiteral("c.key_cache[1]"), QStringLiteral("c.value_cache[1]")}
        << QVector<int>{0};
    QTest::newRow("every input in two calls") << "x=2x3 m=4 | x=3x3 m=5" << QStringList{} << QStringList{} << QVector<int>{};
    // With a single call every leaf is in one call: the one-call warning covers it.
    QTest::newRow("a capture of one call") << "x=2x3" << QStringList{} << QStringList{} << QVector<int>{};
}

void TestDynamicDims::singleCallLeaves()
{
    QFETCH(QString, capture);
    QFETCH(QStringList, texts);
    QFETCH(QStringList, leaves);
    QFETCH(QVector<int>, calls);

    const QVector<InferenceMessage> warnings = singleCallLeafWarnings(ShapeTable(makeCapture(capture)));
    QStringList have;
    for (const InferenceMessage &m : warnings) {
        QCOMPARE(m.severity, InferenceMessage::Severity::Warning);
        have << m.text;
    }
    QCOMPARE(have, texts);
    if (warnings.isEmpty())
        return;
    QStringList warnedLeaves = warnings.first().leaves;
    std::sort(warnedLeaves.begin(), warnedLeaves.end());
    std::sort(leaves.begin(), leaves.end());
    QCOMPARE(warnedLeaves, leaves);
    QCOMPARE(warnings.first().calls, calls);
}

DIMSCOPE_GUILESS_TEST_MAIN(TestDynamicDims)
#include "tst_dynamicdims.moc"
