// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"

namespace dimscope::test {

// A decoder with a DynamicCache, shaped like the captures InputRecorder writes of a
// generate() loop: call 0 is the prefill (`prompt` tokens, past_key_values not passed,
// pixel_values passed); later calls decode one token over a growing cache of `layers`
// layers and leave pixel_values out. Every call passes use_cache=True.
Capture kvCapture(int calls, int layers, int batch = 2, int prompt = 5);

} // namespace dimscope::test
