// SPDX-License-Identifier: GPL-3.0-or-later
// The widget-free logic of the plot and the theme setting: the view a plot of one
// dimension's values per call gets (PlotRange), the words around it (PlotText), and
// how the theme choice is read (ThemeSetting).
#include "plot/plotrange.h"
#include "plot/plottext.h"
#include "settings/settingskeys.h"
#include "settings/themesetting.h"

#include <QSettings>
#include "deterministictestmain.h"

#include <cmath>

using namespace dimscope;

namespace {
QVector<QPointF> perCall(const QVector<double> &values)
{
    QVector<QPointF> points;
    for (int c = 0; c < values.size(); ++c)
        points.append(QPointF(c, values[c]));
    return points;
}

// The share of the view's height between the smallest and the largest value.
double dataShare(const PlotRange &range, double lo, double hi) { return (hi - lo) / (range.yUpper() - range.yLower()); }
} // namespace

class TestPlotRange : public QObject
{
    Q_OBJECT
private slots:
    void constantValueGetsASmallBandAroundIt_data();
    void constantValueGetsASmallBandAroundIt();
    void farBoundIsAnEdgeMarkerInsteadOfFlatteningTheValues();
    void nearBoundsAreShown();
    void boundBeyondEveryValueIsMarkedOnItsSide();
    void markersAtTheEdgesStayInside_data();
    void markersAtTheEdgesStayInside();
    void noPointsGiveADefaultView();
    void titleNamesLeafDimAndDim();
    void pointTextNamesCallAndValue();
    void offscreenBoundTextPointsToIt();
    void themeChoiceReadsSettingsAndEnvironment();
};

void TestPlotRange::constantValueGetsASmallBandAroundIt_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<bool>("withMin"); // the Dim's min equal to the value (batch = 2, min 2)
    QTest::newRow("2") << 2.0 << false;
    QTest::newRow("2 with min 2") << 2.0 << true;
    QTest::newRow("0") << 0.0 << false;
    QTest::newRow("4096") << 4096.0 << false;
}

void TestPlotRange::constantValueGetsASmallBandAroundIt()
{
    QFETCH(double, value);
    QFETCH(bool, withMin);
    // Given the same value in six calls (before: an axis from -250 to 300 for 2)
    std::optional<QPair<double, double>> bounds;
    if (withMin)
        bounds = qMakePair(value, qInf());
    const PlotRange range = PlotRange::fit(perCall({value, value, value, value, value, value}), bounds);
    // Then the value sits inside a band of at most 10 % of it (or +-1)
    QVERIFY(range.yLower() < value && value < range.yUpper());
    QVERIFY2(range.yUpper() - range.yLower() <= std::max(2.5, value * 0.11),
             qPrintable(QStringLiteral("%1..%2").arg(range.yLower()).arg(range.yUpper())));
    QVERIFY(range.offscreenBounds().isEmpty());
}

void TestPlotRange::farBoundIsAnEdgeMarkerInsteadOfFlatteningTheValues()
{
    // Given seq_len's values 5, 1, 1, 1, 3, 1 and its range [1, 512]
    const PlotRange range = PlotRange::fit(perCall({5, 1, 1, 1, 3, 1}), qMakePair(1.0, 512.0));
    // Then the values keep at least a third of the height and 512 is left out
    QVERIFY(range.yUpper() < 512);
    QVERIFY(range.yLower() <= 1 && range.yUpper() >= 5);
    QVERIFY2(dataShare(range, 1, 5) >= PlotRange::MinDataShare, qPrintable(QString::number(dataShare(range, 1, 5))));
    // and it is listed as off-screen above the view (the min, 1, is in view)
    QCOMPARE(range.offscreenBounds().size(), 1);
    QCOMPARE(range.offscreenBounds().first().bound, PlotRange::Bound::Max);
    QCOMPARE(range.offscreenBounds().first().value, 512.0);
    QVERIFY(range.offscreenBounds().first().above);
}

void TestPlotRange::nearBoundsAreShown()
{
    // Given values 1..9 and a range [0, 6] that calls 7..9 violate
    const PlotRange range = PlotRange::fit(perCall({1, 3, 5, 7, 9}), qMakePair(0.0, 6.0));
    // Then both bounds are in view, the violation visibly above the max
    QVERIFY(range.yLower() < 0 && range.yUpper() > 9);
    QVERIFY(range.offscreenBounds().isEmpty());
    // An unbounded max adds nothing
    const PlotRange unbounded = PlotRange::fit(perCall({1, 3, 5, 7, 9}), qMakePair(0.0, qInf()));
    QVERIFY(unbounded.offscreenBounds().isEmpty());
    QVERIFY(unbounded.yUpper() < 11);
}

void TestPlotRange::boundBeyondEveryValueIsMarkedOnItsSide()
{
    // min 100 over values 1..5 (every call violates): an arrow up; values 1000..1010
    // over min 0: an arrow down, the axis does not stretch to 0
    const PlotRange above = PlotRange::fit(perCall({1, 5, 3}), qMakePair(100.0, qInf()));
    QCOMPARE(above.offscreenBounds().size(), 1);
    QCOMPARE(above.offscreenBounds().first().bound, PlotRange::Bound::Min);
    QVERIFY(above.offscreenBounds().first().above);
    const PlotRange below = PlotRange::fit(perCall({1000, 1010, 1005}), qMakePair(0.0, qInf()));
    QCOMPARE(below.offscreenBounds().size(), 1);
    QVERIFY(!below.offscreenBounds().first().above);
    QVERIFY(below.yLower() > 900);
}

void TestPlotRange::markersAtTheEdgesStayInside_data()
{
    QTest::addColumn<double>("xFraction");
    QTest::addColumn<double>("yFraction");
    QTest::newRow("large plot") << 0.01 << 0.02;
    QTest::newRow("default") << 0.03 << 0.06;
    QTest::newRow("small dock") << 0.08 << 0.15;
}

void TestPlotRange::markersAtTheEdgesStayInside()
{
    QFETCH(double, xFraction);
    QFETCH(double, yFraction);
    // Given markers xFraction/yFraction of the view's size (half of each)
    const QVector<QPointF> points = perCall({0, 7, 3, 12, 1, 4, 0});
    const PlotRange range = PlotRange::fit(points, std::nullopt, xFraction, yFraction);
    const double width = range.xUpper() - range.xLower(), height = range.yUpper() - range.yLower();
    // Then every marker lies whole inside the view (up to rounding)
    xFraction -= 1e-9;
    yFraction -= 1e-9;
    for (const QPointF &p : points) {
        QVERIFY((p.x() - range.xLower()) / width >= xFraction && (range.xUpper() - p.x()) / width >= xFraction);
        QVERIFY((p.y() - range.yLower()) / height >= yFraction && (range.yUpper() - p.y()) / height >= yFraction);
    }
}

void TestPlotRange::noPointsGiveADefaultView()
{
    const PlotRange range = PlotRange::fit({}, qMakePair(1.0, 512.0));
    QVERIFY(range.xLower() < range.xUpper());
    QVERIFY(range.yLower() < range.yUpper());
}

void TestPlotRange::titleNamesLeafDimAndDim()
{
    QCOMPARE(PlotText::title(QStringLiteral("input_ids"), 1, QStringLiteral("seq_len"), PlotText::rangeText(1, 512)),
             QStringLiteral("input_ids dim 1 — Dim seq_len [1, 512]"));
    QCOMPARE(PlotText::title(QStringLiteral("past_key_values.key_cache[0]"), 2, QStringLiteral("past_len"), PlotText::rangeText(0, qInf())),
             QStringLiteral("past_key_values.key_cache[0] dim 2 — Dim past_len [0, ∞]"));
    QCOMPARE(PlotText::title(QStringLiteral("input_ids"), 0, QString(), QString()), QStringLiteral("input_ids dim 0"));
}

void TestPlotRange::pointTextNamesCallAndValue()
{
    QCOMPARE(PlotText::pointText(3, 7, QString(), false), QStringLiteral("call 3: 7"));
    QCOMPARE(PlotText::pointText(0, 5, QStringLiteral("seq_len"), false), QStringLiteral("call 0: seq_len = 5"));
    QCOMPARE(PlotText::pointText(4, 600, QStringLiteral("seq_len"), true),
             QStringLiteral("call 4: seq_len = 600 (outside the Dim's range)"));
}

void TestPlotRange::offscreenBoundTextPointsToIt()
{
    QCOMPARE(PlotText::offscreenBoundText({PlotRange::Bound::Max, 512, true}), QStringLiteral("max 512 ↑"));
    QCOMPARE(PlotText::offscreenBoundText({PlotRange::Bound::Min, 0, false}), QStringLiteral("↓ min 0"));
}

void TestPlotRange::themeChoiceReadsSettingsAndEnvironment()
{
    qunsetenv("DIMSCOPE_THEME");
    QSettings().remove(settings::ColourTheme);
    QCOMPARE(ThemeSetting::effective(), Theme::System);
    ThemeSetting::write(Theme::Dark);
    QCOMPARE(QSettings().value(settings::ColourTheme).toString(), QStringLiteral("dark"));
    QCOMPARE(ThemeSetting::saved(), Theme::Dark);
    // DIMSCOPE_THEME wins for the run, the saved choice stays
    qputenv("DIMSCOPE_THEME", "Light");
    QCOMPARE(ThemeSetting::effective(), Theme::Light);
    QCOMPARE(ThemeSetting::saved(), Theme::Dark);
    // A value that names no theme is ignored, anywhere
    qputenv("DIMSCOPE_THEME", "solarized");
    QCOMPARE(ThemeSetting::effective(), Theme::Dark);
    QSettings().setValue(settings::ColourTheme, QStringLiteral("neon"));
    QCOMPARE(ThemeSetting::effective(), Theme::System);
    qunsetenv("DIMSCOPE_THEME");
}

DIMSCOPE_GUILESS_TEST_MAIN(TestPlotRange)
#include "tst_plotrange.moc"
