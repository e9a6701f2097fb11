// SPDX-License-Identifier: GPL-3.0-or-later
#include "capturebuilder.h"
#include "inference/shapetable.h"

#include "deterministictestmain.h"

using namespace dimscope;
using namespace dimscope::test;

// The ShapeTable built from a capture: which inputs and leaves it holds, their sizes
// per call, and the differences between calls that no Dim can describe.
class TestShapeTable : public QObject
{
    Q_OBJECT
private slots:
    void inputsInSignatureOrder();
    void sizesPerCall();
    void rowVaries();
    void onlyTensorsAreRows();
    void rankChangeIsAnIssue();
    void missingLeafIsAnIssue();
    void kindChangeIsAnIssue();
    void describeCalls_data();
    void describeCalls();
};

void TestShapeTable::inputsInSignatureOrder()
{
    // b is passed only in call 1, d never: the table lists the inputs some call passes.
    const ShapeTable table(makeCapture(QStringLiteral("a=2 b=- d=- | a=3 c=4 b=5 d=-")));
    QCOMPARE(table.args(), (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")}));
}

void TestShapeTable::sizesPerCall()
{
    const ShapeTable table(makeCapture(QStringLiteral("x=2x3 m=- | x=4x3 m=5x6 | x=6x3 m=7x8")));
    QCOMPARE(table.callCount(), 3);
    QCOMPARE(table.leafCount(), 2);
    QCOMPARE(table.dimRowCount(), 4);
    const int m = table.indexOf(QStringLiteral("m"));
    const ShapeTable::LeafInfo &info = table.leaf(m);
    QCOMPARE(info.rank, 2);
    QCOMPARE(info.firstDim, 2);
    QCOMPARE(info.presentCalls, 2);
    QVERIFY(info.consistent);
    QVERIFY(!table.present(m, 0));
    QVERIFY(table.present(m, 1));
    // -1: call 0 does not pass m.
    QCOMPARE((QVector<qint64>{table.value(2, 0), table.value(2, 1), table.value(2, 2)}), (QVector<qint64>{-1, 5, 7}));
    QCOMPARE(table.leafOfRow(3), m);
    QCOMPARE(table.dimOfRow(3), 1);
    QVERIFY(table.issues().isEmpty());
}

void TestShapeTable::rowVaries()
{
    // x: dim 0 varies, dim 1 does not. m: absent from call 0, the same size in the
    // calls that pass it (the -1 of the absent call is no size). s: one size differs.
    const ShapeTable table(makeCapture(QStringLiteral("x=2x3 m=- s=1 | x=4x3 m=5 s=1 | x=6x3 m=5 s=9")));
    const auto rowOf = [&table](const char *leaf, int dim) {
        return table.leaf(table.indexOf(QLatin1String(leaf))).firstDim + dim;
    };
    QVERIFY(table.rowVaries(rowOf("x", 0)));
    QVERIFY(!table.rowVaries(rowOf("x", 1)));
    QVERIFY(!table.rowVaries(rowOf("m", 0)));
    QVERIFY(table.rowVaries(rowOf("s", 0)));
}

void TestShapeTable::onlyTensorsAreRows()
{
    const ShapeTable table(makeCapture(QStringLiteral("x=2 n=int(3) k=none | x=3 n=int(4) k=none")));
    QCOMPARE(table.leafCount(), 1);
    QCOMPARE(table.leaf(0).path, QStringLiteral("x"));
    QCOMPARE(table.indexOf(QStringLiteral("n")), -1);
    QVERIFY(table.issues().isEmpty());
}

void TestShapeTable::rankChangeIsAnIssue()
{
    const ShapeTable table(makeCapture(QStringLiteral("x=2x3 | x=2x3x4 | x=2x5")));
    QCOMPARE(table.issues().size(), 1);
    const ShapeIssue &issue = table.issues().first();
    QCOMPARE(issue.path, QStringLiteral("x"));
    QCOMPARE(issue.message,
             QStringLiteral("'x' changes rank between calls: a rank-2 tensor in call(s) 0, 2; a rank-3 tensor in call(s) 1"));
    QCOMPARE(issue.calls, QVector<int>{1});
    // Kept with the rank of its first call, without the call of the other rank.
    const ShapeTable::LeafInfo &info = table.leaf(table.indexOf(QStringLiteral("x")));
    QVERIFY(!info.consistent);
    QCOMPARE(info.rank, 2);
    QCOMPARE(info.presentCalls, 2);
}

void TestShapeTable::missingLeafIsAnIssue()
{
    // A leaf some calls have and others not: a change of structure (one program per
    // structure), not an error; the leaf keeps its sizes in the calls that have it.
    const ShapeTable table(makeCapture(QStringLiteral("c=cache(2:1x2x3x4) | c=cache(1:1x2x4x4) | c=cache(2:1x2x5x4)")));
    QStringList messages;
    for (const ShapeIssue &issue : table.issues())
        messages << issue.message;
    QCOMPARE(messages,
             (QStringList{QStringLiteral("'c.key_cache[1]' is present in call(s) 0, 2 but absent from call(s) 1, which pass 'c': the "
                          "structure of 'c' changes between calls (a program serves the calls of one structure)"),
                          QStringLiteral("'c.value_cache[1]' is present in call(s) 0, 2 but absent from call(s) 1, which pass 'c': the "
                          "structure of 'c' changes between calls (a program serves the calls of one structure)")}));
    const ShapeIssue &first = table.issues().first();
    QCOMPARE(first.calls, QVector<int>{1});
    QCOMPARE(first.present, (QVector<int>{0, 2}));
    QCOMPARE(first.input, QStringLiteral("c"));
    QVERIFY(!first.isError());
    const int leaf = table.indexOf(QStringLiteral("c.key_cache[1]"));
    QVERIFY(table.leaf(leaf).consistent);
    QCOMPARE(table.leaf(leaf).presentCalls, 2);
    QVERIFY(table.present(leaf, 0) && !table.present(leaf, 1) && table.present(leaf, 2));
    QVERIFY(table.leaf(table.indexOf(QStringLiteral("c.key_cache[0]"))).consistent);
}

void TestShapeTable::kindChangeIsAnIssue()
{
    // None in the first call that has it: no tensor rank to give it, so no rows.
    const ShapeTable table(makeCapture(QStringLiteral("x=none | x=2x3 | x=4x3")));
    QCOMPARE(table.issues().size(), 1);
    QVERIFY(table.issues().first().isError());
    QVERIFY2(table.issues().first().message.startsWith(QLatin1String("'x' changes kind between calls: ")),
             qPrintable(table.issues().first().message));
    QCOMPARE(table.indexOf(QStringLiteral("x")), -1);
}

void TestShapeTable::describeCalls_data()
{
    QTest::addColumn<QVector<int>>("calls");
    QTest::addColumn<QString>("text");
    QTest::newRow("single") << QVector<int>{4} << "4";
    QTest::newRow("two in a row are listed") << QVector<int>{0, 1} << "0, 1";
    QTest::newRow("three in a row are a range") << QVector<int>{0, 1, 2, 5} << "0-2, 5";
    QTest::newRow("none") << QVector<int>{} << "";
}

void TestShapeTable::describeCalls()
{
    QFETCH(QVector<int>, calls);
    QFETCH(QString, text);
    QCOMPARE(dimscope::describeCalls(calls), text);
}

DIMSCOPE_GUILESS_TEST_MAIN(TestShapeTable)
#include "tst_shapetable.moc"
