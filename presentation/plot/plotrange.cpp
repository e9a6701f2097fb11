// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot/plotrange.h"

#include <QtMath>

#include <algorithm>
#include <cmath>

namespace dimscope {

namespace {
// The padding either side of a span that keeps a marker of `fraction` (half its size
// over the axis length) inside: pad / (span + 2 pad) >= fraction.
double paddingFor(double span, double fraction, double minimumShare)
{
    const double f = std::clamp(fraction, 0.0, 0.4);
    return span * std::max(minimumShare, f / (1.0 - 2.0 * f));
}
} // namespace

PlotRange PlotRange::fit(const QVector<QPointF> &points, const std::optional<QPair<double, double>> &bounds,
                         double markerXFraction, double markerYFraction)
{
    PlotRange range;
    if (points.isEmpty())
        return range;
    const auto [minX, maxX] = std::minmax_element(points.cbegin(), points.cend(),
                                                  [](const QPointF &a, const QPointF &b) { return a.x() < b.x(); });
    // Calls are whole numbers: at least half a call either side.
    const double xPad = std::max(0.5, paddingFor(maxX->x() - minX->x(), markerXFraction, 0.0));
    range.m_xLower = minX->x() - xPad;
    range.m_xUpper = maxX->x() + xPad;
    range.fitY(points, bounds, markerYFraction);
    return range;
}

void PlotRange::fitY(const QVector<QPointF> &points, const std::optional<QPair<double, double>> &bounds, double markerFraction)
{
    const auto [minY, maxY] = std::minmax_element(points.cbegin(), points.cend(),
                                                  [](const QPointF &a, const QPointF &b) { return a.y() < b.y(); });
    const double lo = minY->y(), hi = maxY->y();
    // A constant value: a band of +-1 (or 5 % for large values) around it; sizes are
    // whole numbers, so the neighbours above and below are visible as ticks.
    const double pad = hi > lo ? paddingFor(hi - lo, markerFraction, 0.08) : std::max(1.0, std::abs(lo) * 0.05);
    m_yLower = lo - pad;
    m_yUpper = hi + pad;
    if (!bounds)
        return;
    const double dataSpan = m_yUpper - m_yLower;
    includeOrMark(Bound::Min, bounds->first, dataSpan);
    if (!std::isinf(bounds->second))
        includeOrMark(Bound::Max, bounds->second, dataSpan);
}

void PlotRange::includeOrMark(Bound bound, double value, double dataSpan)
{
    if (value >= m_yLower && value <= m_yUpper)
        return;
    const double lower = std::min(m_yLower, value), upper = std::max(m_yUpper, value);
    // A little room past the bound so that its line is not drawn on the axis itself.
    const double margin = (upper - lower) * 0.03;
    if (dataSpan / (upper - lower + margin) < MinDataShare) {
        m_offscreen.append({bound, value, value > m_yUpper});
        return;
    }
    if (value < m_yLower)
        m_yLower = value - margin;
    else
        m_yUpper = value + margin;
}

} // namespace dimscope
