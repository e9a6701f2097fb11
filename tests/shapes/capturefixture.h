#pragma once

#include "capture/capture.h"

#include <QString>

namespace dimscope::test {

// Builds an in-memory Capture from a compact text, one call per '|':
//   "x=5x6 y=1x6 | x=7x8 y=1x8"
// Items: NAME=SHAPE (tensor, "" for rank 0 is written "scalar"), NAME=- (optional input
// not passed), NAME=SHAPE* (value_if_missing tensor: missing + filled),
// NAME=cache(L:SHAPE) (DynamicCache, key_value_dict flavour, L layers of SHAPE),
// NAME=list(SHAPE,SHAPE) (list of tensors), NAME=int(N), NAME=none.
// The signature lists every name in order of first appearance, all with defaults.
Capture makeCapture(const QString &text);

} // namespace dimscope::test

#include "shapes/constraintset.h"

namespace dimscope::test {
// "batch[2,oo] total_len=past_len + 1" : the Dims of a set, for table-driven tests.
QString summarizeDims(const ConstraintSet &set);
// "x(batch,x_dim1) y(static,x_dim1)" : the leaves with a non-static dim only.
QString summarizeLeaves(const ConstraintSet &set);
} // namespace dimscope::test
