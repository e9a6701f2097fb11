// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace dimscope {

class Capture;
class ConstraintSet;

// Writes the dynamic_shapes for a capture as a Python snippet a user can paste into a
// script: `import torch`, `from torch.export import Dim`, the Dim declarations (derived
// ones as expressions of their root) and `dynamic_shapes = {...}` keyed by forward
// parameter names.
class PythonSpecEmitter
{
public:
    // `exampleCall` < 0: the default example call (see chooseExampleCall).
    static QString generate(const Capture &capture, const ConstraintSet &set, int exampleCall = -1);
};

} // namespace dimscope
