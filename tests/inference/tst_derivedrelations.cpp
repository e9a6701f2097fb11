// SPDX-License-Identifier: GPL-3.0-or-later
#include "capturebuilder.h"
#include "groupfixture.h"
#include "inference/derivedrelations.h"
#include "inference/dimranges.h"
#include "inference/dimsums.h"

#include "deterministictestmain.h"

using namespace dimscope;
using namespace dimscope::test;

// ShapeInference's steps on relations between groups: derived Dims, sums of two
// Dims (noted only), and the ranges that keep derived Dims non-negative.
class TestDerivedRelations : public QObject
{
    Q_OBJECT
private slots:
    void derived_data();
    void derived();
    void sums_data();
    void sums();
    void ranges_data();
    void ranges();
};

// "y_dim0=2*x_dim0+1" for derived groups, "x_dim0" for roots, in group order.
static QString describeRelations(const QVector<DimGroup> &groups)
{
    QStringList out;
    for (const DimGroup &g : groups)
        out << (g.root < 0 ? g.name : QStringLiteral("%1=%2*%3%4%5").arg(g.name).arg(g.a).arg(groups[g.root].name)
                                          .arg(g.b < 0 ? QStringLiteral("-") : QStringLiteral("+")).arg(std::llabs(g.b)));
    return out.join(QLatin1Char(' '));
}

static QStringList textsOf(const QVector<InferenceMessage> &messages, InferenceMessage::Severity severity)
{
    QStringList texts;
    for (const InferenceMessage &m : messages) {
        if (m.severity == severity)
            texts << m.text;
    }
    return texts;
}

void TestDerivedRelations::derived_data()
{
    QTest::addColumn<QString>("capture");
    QTest::addColumn<QString>("relations");
    QTest::addColumn<QStringList>("notes");

    QTest::newRow("y = 2x + 1 over 3 distinct values")
        << "x=3 y=7 | x=4 y=9 | x=6 y=13" << "x_dim0 y_dim0=2*x_dim0+1"
        << QStringList{QStringLiteral("'y_dim0' = 2*x_dim0 + 1 in every call that has both (calls 0-2): proposed as a derived Dim")};
    QTest::newRow("only 2 distinct values: noted, kept separate")
        << "x=5x6 | x=7x8" << "batch x_dim1"
        << QStringList{QStringLiteral("'x_dim1' = batch + 1 in the captured calls, but only 2 distinct values support it: kept as a "
                       "separate Dim (make it derived by hand if the model requires it)")};
    QTest::newRow("the smaller group is the root")
        << "x=5 y=3 | x=6 y=4 | x=9 y=7" << "x_dim0=1*y_dim0+2 y_dim0"
        << QStringList{QStringLiteral("'x_dim0' = y_dim0 + 2 in every call that has both (calls 0-2): proposed as a derived Dim")};
    QTest::newRow("a fractional factor is no relation") << "x=2 y=3 | x=4 y=4 | x=6 y=5" << "x_dim0 y_dim0" << QStringList{};
    QTest::newRow("the root with the smallest factor wins")
        << "x=2 y=3 z=6 | x=4 y=4 z=8 | x=6 y=5 z=10" << "x_dim0 y_dim0 z_dim0=1*x_dim0+4"
        << QStringList{QStringLiteral("'z_dim0' = x_dim0 + 4 in every call that has both (calls 0-2): proposed as a derived Dim")};
    QTest::newRow("only the calls that have both count")
        << "x=3 y=7 | x=4 y=- | x=6 y=13 | x=8 y=17" << "x_dim0 y_dim0=2*x_dim0+1"
        << QStringList{QStringLiteral("'y_dim0' = 2*x_dim0 + 1 in every call that has both (calls 0, 2, 3): proposed as a derived Dim")};
}

void TestDerivedRelations::derived()
{
    QFETCH(QString, capture);
    QFETCH(QString, relations);
    QFETCH(QStringList, notes);

    const ShapeTable table(makeCapture(capture));
    QVector<DimGroup> groups = namedGroups(table);
    const QVector<InferenceMessage> messages = deriveRelations(&groups);
    QCOMPARE(describeRelations(groups), relations);
    QCOMPARE(textsOf(messages, InferenceMessage::Severity::Note), notes);
    QCOMPARE(messages.size(), notes.size());
}

void TestDerivedRelations::sums_data()
{
    QTest::addColumn<QString>("capture");
    QTest::addColumn<QStringList>("notes");

    QTest::newRow("t = p + s in 4 calls")
        << "p=2 s=3 t=5 | p=4 s=2 t=6 | p=5 s=4 t=9 | p=7 s=3 t=10"
        << QStringList{QStringLiteral("'t_dim0' = 'p_dim0' + 's_dim0' in every call that has all three (calls 0-3): torch.export "
                       "cannot express a sum of two Dims, so they stay separate Dims")};
    QTest::newRow("two calls are too few to tell") << "p=2 s=3 t=5 | p=4 s=2 t=6" << QStringList{};
    QTest::newRow("a sum broken in one call") << "p=2 s=3 t=5 | p=4 s=2 t=6 | p=5 s=4 t=9 | p=7 s=3 t=11" << QStringList{};
}

void TestDerivedRelations::sums()
{
    QFETCH(QString, capture);
    QFETCH(QStringList, notes);

    const ShapeTable table(makeCapture(capture));
    QVector<DimGroup> groups = namedGroups(table);
    deriveRelations(&groups);
    const QVector<InferenceMessage> messages = sumOfTwoDimsNotes(groups);
    QCOMPARE(textsOf(messages, InferenceMessage::Severity::Note), notes);
    for (const InferenceMessage &m : messages)
        QCOMPARE(m.dim, QStringLiteral("t_dim0"));
}

void TestDerivedRelations::ranges_data()
{
    QTest::addColumn<QString>("capture");
    QTest::addColumn<QString>("mins"); // name:rangeMin per group
    QTest::addColumn<QStringList>("warnings");

    QTest::newRow("a batch Dim from 1, though every size is >= 2") << "x=3x2 | x=5x2" << "batch:1" << QStringList{};
    QTest::newRow("other Dims from 2 when every size is >= 2")
        << "t=3x2 | t=5x4" << "t_dim0:2 t_dim1:2" << QStringList{};
    QTest::newRow("a group that is batch in one leaf and not in another: from 2")
        << "x=3x2 t=3 | x=5x2 t=5" << "batch:2" << QStringList{};
    QTest::newRow("a size of 0 or 1 lowers the min") << "x=0x4 | x=1x4 | x=3x4" << "batch:0" << QStringList{};
    QTest::newRow("a derived Dim that would go negative raises its root's min")
        << "x=3 y=1 | x=5 y=5 | x=8 y=11" << "x_dim0:3 y_dim0:1"
        << QStringList{QStringLiteral("derived Dim 'y_dim0' = 2*x_dim0 - 5 would go negative for x_dim0 < 3 (torch.export rejects "
                       "that): the min of 'x_dim0' is raised to 3")};
    QTest::newRow("a derived Dim that stays >= 0 at the root's min")
        << "x=3 y=3 | x=5 y=7 | x=8 y=13" << "x_dim0:2 y_dim0:2" << QStringList{};
}

void TestDerivedRelations::ranges()
{
    QFETCH(QString, capture);
    QFETCH(QString, mins);
    QFETCH(QStringList, warnings);

    const ShapeTable table(makeCapture(capture));
    QVector<DimGroup> groups = namedGroups(table);
    deriveRelations(&groups);
    const QVector<InferenceMessage> messages = proposeDimRanges(&groups);
    QStringList have;
    for (const DimGroup &g : std::as_const(groups))
        have << QStringLiteral("%1:%2").arg(g.name).arg(g.rangeMin);
    QCOMPARE(have.join(QLatin1Char(' ')), mins);
    QCOMPARE(textsOf(messages, InferenceMessage::Severity::Warning), warnings);
    QCOMPARE(messages.size(), warnings.size());
}

DIMSCOPE_GUILESS_TEST_MAIN(TestDerivedRelations)
#include "tst_derivedrelations.moc"
