// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

namespace dimscope {

class ConstraintSet;
class ShapeTable;

// Where the constraints a program was exported with ended narrower than those its
// export started from (issue 24 item 2): a dimension the fix loop made static because
// torch specialized it, or a Dim whose range a fix cut (torch's suggested minimum, a
// maximum from a guard). Calls outside are served by no program unless another one
// takes them, so the CLI and the window warn instead of staying silent. A relation a
// fix introduced (total_len = past_len + 1) holds in every call of the phase and is
// not reported; neither is an "auto" dimension, which was torch's to decide.
class ProgramNarrowing
{
public:
    // One line per narrowed Dim: "pixel_values dim 0 is 2 only (asked: batch [2, oo])",
    // "total_len [3, oo] (asked [2, oo])". `table` holds the program's calls (the sizes
    // a static dimension kept).
    static QStringList find(const ConstraintSet &asked, const ConstraintSet &exported, const ShapeTable &table);
};

} // namespace dimscope
