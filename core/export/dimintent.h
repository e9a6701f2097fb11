// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pt2/pt2dimmapper.h"

#include <QHash>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace dimscope {

class ConstraintSet;
struct CallTree;

// What the user asked each dimension of the example call's tensor leaves to be, in
// Pt2DimMapper's terms, so an exported program can be checked against the intent
// (which dims the constraints made dynamic, and under which Dim names).
struct DimIntent {
    QStringList leafPaths;                   // the example call's leaves, flattening order
    QHash<QString, QStringList> leafDims;    // tensor leaf -> "static" / "auto" / "dynamic" / Dim name
    QHash<QString, Pt2DerivedDim> derived;   // derived Dims of the constraints

    // Dims the user wanted dynamic: named Dims and Dim.DYNAMIC ("auto" is torch's choice).
    int wantedDynamicCount() const;
    Pt2DimMapping map(const Pt2Program &program) const
    {
        return Pt2DimMapper::map(program, leafPaths, leafDims, derived);
    }

    // The intent with every leaf of the top-level inputs `names` static: the inputs a
    // program is keyed to by value (the worker traces them with static shapes).
    DimIntent withStatic(const QStringList &names) const;

    static DimIntent fromConstraints(const CallTree &call, const ConstraintSet &set);
    // From a dimscope.dynamic_shapes document, walked alongside the call's input tree
    // (docs/spec-format.md). On a structure mismatch, sets *error (naming the path)
    // and returns what was matched so far.
    static DimIntent fromSpec(const CallTree &call, const QJsonObject &spec, QString *error);
};

} // namespace dimscope
