// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

namespace dimscope {

class ConstraintSet;
struct SpecNode;

// The dynamic_shapes of the SpecDialect::ShapesCollection dialect, for SpecScript: the
// named Dims, then a torch.export.ShapesCollection keyed by the example call's tensors
// (`call.input_leaf(path)`, the very objects export flattens), one line per tensor with
// a non-static dimension, and `dynamic_shapes = shapes.dynamic_shapes(model, args,
// kwargs)`. Expects `call`, `model`, `args` and `kwargs` defined before it.
class ShapesCollectionEmitter
{
public:
    static QString body(const ConstraintSet &set, const SpecNode &tree, const QStringList &used);
};

} // namespace dimscope
