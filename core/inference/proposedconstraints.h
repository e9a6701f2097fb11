// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constraints/constraintset.h"
#include "inference/dimgroup.h"

namespace dimscope {

class ShapeTable;

// The ConstraintSet ShapeInference proposes from its groups, and what each leaf
// dimension becomes in it. A Dim whose size in the example call is 0 or 1 cannot
// stay symbolic in that export (torch specializes it and a named Dim or Dim.DYNAMIC
// would make the export fail): its group is an "auto group", whose dims become
// Dim.AUTO; a Dim derived from an auto group becomes a root of its own.
class ProposedConstraints
{
public:
    // The groups whose size in `exampleCall` is 0 or 1.
    static QVector<int> autoGroupsAt(const QVector<DimGroup> &groups, int exampleCall);
    // Root Dims (with their rangeMin, no max), then derived Dims, in group order;
    // every consistent leaf with its dims: named, Dim.AUTO, or static.
    static ConstraintSet build(const ShapeTable &table, const QVector<DimGroup> &groups, const QVector<int> &autoGroups);
    // Per dim row: its group's name, "auto" in an auto group, empty when static.
    static QVector<QString> rowDimNames(const ShapeTable &table, const QVector<DimGroup> &groups,
                                        const QVector<int> &autoGroups);
};

} // namespace dimscope
