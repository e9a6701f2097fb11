// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>

namespace dimscope {

class ConstraintSet;
class ShapeTable;

// The sizes a program takes only as recorded because the recording never varied them
// (issue 27, the held-out check): a dimension with a role inference names (a batch, a
// prompt, mask or cache length) that is static in the program and has one size in
// every recorded call that passes it. Nothing narrowed what was asked (it was asked
// static), so ProgramNarrowing is silent, yet a call with another size is rejected:
// Gemma2's static cache keeps its sliding layers' mask and keys as long as the window
// (8) in every recorded call, and a prompt past the window or a cache shorter than it
// is refused. The CLI and --json say so at export time, with the guard torch checks.
class UnvariedSizes
{
public:
    // One line per size: "attention_mask['sliding_attention'] dim 3,
    // past_key_values.key_cache[0] dim 2 are 8 in every recorded call: …". `recorded`
    // holds every recorded call of the capture (not only the program's).
    static QStringList find(const ConstraintSet &exported, const ShapeTable &recorded);
};

} // namespace dimscope
