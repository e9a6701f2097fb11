// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <optional>

namespace dimscope {

// How a Dim's or a symbol's range reads in the window: an unbounded end is ∞ where torch
// writes "oo". Only the display: the CLI and a .pt2 keep torch's spelling
// (Pt2Range::toString), and the Dims table's editor takes either (DimsModel::parseBound).
class RangeText
{
public:
    static QString infinity();
    // "64"; ∞ when there is no upper bound.
    static QString upper(const std::optional<qint64> &max);
    // "[2, 64]", "[0, ∞]"; a missing lower bound is -∞.
    static QString range(const std::optional<qint64> &min, const std::optional<qint64> &max);
};

} // namespace dimscope
