// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"

#include <QString>

namespace dimscope {

// One line describing a call's inputs the way onnx-diagnostic's string_type does:
//   dict(input_ids:T7s2x3,past_key_values:DynamicCache(key_cache=#2[T1s2x4x5x8,T1s2x4x5x8],value_cache=#2[...]))
// T<onnx element type>s<dims joined by x> is a tensor, #N[...] a list of N items,
// (...) a tuple, Class(field=...) a named tuple or custom class; None, int, float,
// bool, str for the scalar leaves. Lists longer than `maxListItems` are abbreviated:
// #64[T1s2x4x5x8,…] when all items read the same, else the first items, …, the last.
QString callSummary(const CallTree &tree, int maxListItems = 4);

// The T7s2x3 part for one tensor leaf (shape "s" followed by nothing for a 0-d tensor).
QString tensorSummary(const Leaf &leaf);

} // namespace dimscope
