// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <optional>

namespace dimscope {

// How a range reads where torch's spelling is kept: the CLI, the files dimscope writes
// and a .pt2's range_constraints write an unbounded end as "oo" (the window writes ∞:
// presentation's RangeText).
class TorchRangeText
{
public:
    // "64"; "oo" when there is no upper bound.
    static QString upper(const std::optional<qint64> &max);
    // "[2, 64]", "[0, oo]"; a missing lower bound is -oo.
    static QString range(const std::optional<qint64> &min, const std::optional<qint64> &max);
};

} // namespace dimscope
