// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"

#include <QString>

namespace dimscope::test {

// The one in-memory capture builder of the tests: a Capture from a compact text, one
// call per '|':
//   "input_ids=2x3:i64 attention_mask=2x3 past_key_values=cache(2:3x4x3x8) | ..."
// Items:
//   NAME=SHAPE[:DTYPE]   a tensor; SHAPE "2x3", "scalar" for rank 0; DTYPE a safetensors
//                        name in any case (i64, bf16, ...), float32 when left out
//   NAME=-               an optional input the call did not pass
//   NAME=SHAPE*          a value_if_missing tensor: not passed, recorded from the default
//   NAME=cache(L:SHAPE[:DTYPE])  a DynamicCache (key_value_dict), L layers of SHAPE
//   NAME=list(SHAPE,SHAPE)       a list of tensors
//   NAME=int(N), NAME=bool(true|false), NAME=none   scalar leaves
// The signature lists every name in order of first appearance, all but the first with
// a default. Tensors live on "cpu"; no leaf has bytes (the capture has no file).
Capture makeCapture(const QString &text);

} // namespace dimscope::test
