// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constraints/dimassignment.h"

#include <QPair>
#include <QStringList>
#include <QVector>

namespace dimscope {

class Capture;
class ConstraintSet;
class ShapeTable;

// The dynamic_shapes structure for one call, before it is written as Python or JSON
// (docs/spec-format.md, "dynamic_shapes spec"): dicts keyed by parameter name,
// lists / tuples per container, custom classes as the list of their children,
// tensors as their non-static dimensions, None for everything else.
struct SpecNode {
    enum class Kind { Dict, List, Tuple, Tensor, None };
    Kind kind = Kind::None;
    QStringList keys;                          // Dict
    QVector<SpecNode> children;                // Dict, List, Tuple
    QVector<QPair<int, DimAssignment>> dims;   // Tensor: non-static dimensions only
    QString path;                              // Tensor: the leaf's key path
};

class SpecTree
{
public:
    // `call` < 0: the default example call (chooseExampleCall).
    static SpecNode build(const Capture &capture, const ConstraintSet &set, int call);
    static int resolveCall(const Capture &capture, const ConstraintSet &set, int call);
    // Dims the tree uses, in the set's order, with the roots of derived ones.
    static QStringList usedDims(const SpecNode &root, const ConstraintSet &set);
};

} // namespace dimscope
