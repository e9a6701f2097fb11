// SPDX-License-Identifier: GPL-3.0-or-later
// How ranges read in the window (RangeText): ∞ for an unbounded end, where torch and a
// .pt2 write "oo" (Pt2Range::toString keeps that spelling for the CLI).
#include "pt2/pt2program.h"
#include "text/rangetext.h"

#include "deterministictestmain.h"

#include <limits>

using namespace dimscope;

class TestRangeText : public QObject
{
    Q_OBJECT
private slots:
    void rangeReadsInfinityForAMissingBound_data();
    void rangeReadsInfinityForAMissingBound();
    void upperBoundIsTheNumberOrInfinity();
    void torchsSpellingStaysOutsideTheWindow();
};

void TestRangeText::rangeReadsInfinityForAMissingBound_data()
{
    QTest::addColumn<std::optional<qint64>>("min");
    QTest::addColumn<std::optional<qint64>>("max");
    QTest::addColumn<QString>("expected");
    QTest::newRow("bounded") << std::optional<qint64>(2) << std::optional<qint64>(64) << QStringLiteral("[2, 64]");
    QTest::newRow("no upper") << std::optional<qint64>(0) << std::optional<qint64>() << QStringLiteral("[0, ∞]");
    QTest::newRow("neither") << std::optional<qint64>() << std::optional<qint64>() << QStringLiteral("[-∞, ∞]");
    QTest::newRow("large") << std::optional<qint64>(1) << std::optional<qint64>(std::numeric_limits<qint64>::max() - 1)
                           << QStringLiteral("[1, 9223372036854775806]");
}

void TestRangeText::rangeReadsInfinityForAMissingBound()
{
    QFETCH(std::optional<qint64>, min);
    QFETCH(std::optional<qint64>, max);
    QFETCH(QString, expected);
    QCOMPARE(RangeText::range(min, max), expected);
}

void TestRangeText::upperBoundIsTheNumberOrInfinity()
{
    QCOMPARE(RangeText::upper(512), QStringLiteral("512"));
    QCOMPARE(RangeText::upper(std::nullopt), QStringLiteral("∞"));
    QCOMPARE(RangeText::infinity(), QStringLiteral("∞"));
}

// The same range from a .pt2: the window's text and the CLI's differ only in the infinity.
void TestRangeText::torchsSpellingStaysOutsideTheWindow()
{
    Pt2Range range;
    range.key = QStringLiteral("s0");
    range.min = 0;
    QCOMPARE(range.toString(), QStringLiteral("[0, oo]"));
    QCOMPARE(RangeText::range(range.min, range.max), QStringLiteral("[0, ∞]"));
}

DIMSCOPE_GUILESS_TEST_MAIN(TestRangeText)
#include "tst_rangetext.moc"
