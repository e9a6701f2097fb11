// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

namespace dimscope {

class Capture;
class ConstraintSet;
struct SpecNode;

// Writes the dynamic_shapes for a capture as a Python snippet a user can paste into a
// script: `import torch`, `from torch.export import Dim`, the Dim declarations (derived
// ones as expressions of their root) and `dynamic_shapes = {...}` keyed by forward
// parameter names.
class PythonSpecEmitter
{
public:
    // `exampleCall` < 0: the default example call (see chooseExampleCall).
    static QString generate(const Capture &capture, const ConstraintSet &set, int exampleCall = -1);

    // The pieces SpecScript reuses for its dialects:
    // the Python variable of a Dim (a name the snippet itself uses gets a prefix);
    static QString variable(const QString &dim);
    // `name = Dim("name", min=…)` for the roots of `used`, then `name = a * root + b` for
    // the derived ones;
    static QString declarations(const ConstraintSet &set, const QStringList &used);
    // `dynamic_shapes = {…}` with a final line feed.
    static QString assignment(const SpecNode &tree);
    // A tensor's entry: `{0: batch, 1: Dim.AUTO}` (its non-static dimensions).
    static QString tensorDims(const SpecNode &tensor);
};

} // namespace dimscope
