// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inference/inferenceresult.h"

namespace dimscope {

class ShapeTable;

// One warning per input whose leaves only one call has (in a capture of several
// calls): nothing tells whether their dimensions change, so they are proposed
// static. The warning names the leaf (or the input and its leaf count) and the call.
QVector<InferenceMessage> singleCallLeafWarnings(const ShapeTable &table);

} // namespace dimscope
