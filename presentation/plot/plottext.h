// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "plot/plotrange.h"

#include <QString>

#include <optional>

namespace dimscope {

// The words around a plot of one dimension's value per call: its title (shown in the
// panel and written into a saved PNG or PDF), the text shown when hovering a point,
// and the label of a Dim bound drawn as an arrow at the edge of the view.
class PlotText
{
public:
    // "[1, 512]", "[0, ∞]" (upper = +inf when unbounded).
    static QString rangeText(double lower, double upper);
    // "input_ids dim 1 — Dim seq_len [1, 512]"; without a Dim "input_ids dim 1".
    // range is rangeText's, empty when there is none.
    static QString title(const QString &leafPath, int dim, const QString &dimName, const QString &range);
    // "call 3: 7", with a Dim "call 3: seq_len = 7", plus " (outside the Dim's range)"
    // for a violating call.
    static QString pointText(int call, double value, const QString &dimName, bool violating);
    // "max 512 ↑" or "↓ min 0": where a bound is that the view leaves out.
    static QString offscreenBoundText(const PlotRange::OffscreenBound &bound);
};

} // namespace dimscope
