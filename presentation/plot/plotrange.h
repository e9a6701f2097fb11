// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QPair>
#include <QPointF>
#include <QVector>

#include <optional>

namespace dimscope {

// The visible ranges of a plot of one dimension's value per call, chosen so that the
// values fill the view: a constant value gets a small band around it instead of a
// range stretched to 0; every marker (drawn around a point) stays fully inside; and
// the Dim's bounds widen the view only while the values keep a third of its height. A
// bound further away (max = 512 over values 1..5) is listed as off-screen, for the plot
// to draw as an arrow at the edge instead of flattening the data.
class PlotRange
{
public:
    enum class Bound { Min, Max };
    struct OffscreenBound
    {
        Bound bound;
        double value;
        bool above; // past the top of the view (else below its bottom)
    };

    // points: (call, value). bounds: the Dim's [min, max]; max may be +inf (unbounded).
    // markerXFraction/markerYFraction: half a marker's size as a fraction of the plot
    // area's width/height, so that the margins keep markers at the edges whole.
    static PlotRange fit(const QVector<QPointF> &points, const std::optional<QPair<double, double>> &bounds,
                         double markerXFraction = 0.03, double markerYFraction = 0.06);

    double xLower() const { return m_xLower; }
    double xUpper() const { return m_xUpper; }
    double yLower() const { return m_yLower; }
    double yUpper() const { return m_yUpper; }
    const QVector<OffscreenBound> &offscreenBounds() const { return m_offscreen; }

    // The smallest share of the view's height the values keep when a bound is shown.
    static constexpr double MinDataShare = 1.0 / 3.0;

private:
    void fitY(const QVector<QPointF> &points, const std::optional<QPair<double, double>> &bounds, double markerFraction);
    void includeOrMark(Bound bound, double value, double dataSpan);

    double m_xLower = -0.5;
    double m_xUpper = 0.5;
    double m_yLower = 0.0;
    double m_yUpper = 1.0;
    QVector<OffscreenBound> m_offscreen;
};

} // namespace dimscope
