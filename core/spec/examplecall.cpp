// SPDX-License-Identifier: GPL-3.0-or-later
#include "spec/examplecall.h"

#include "constraints/constraintset.h"
#include "inference/shapetable.h"

#include <QHash>
#include <QSet>

namespace dimscope {

namespace {

struct DynamicRow {
    int row;
    QString root; // the root Dim it is named with; empty for auto / dynamic / derived
};

QVector<DynamicRow> dynamicRows(const ShapeTable &table, const ConstraintSet &constraints)
{
    QVector<DynamicRow> rows;
    for (const LeafConstraint &l : constraints.leaves()) {
        const int li = table.indexOf(l.path);
        if (li < 0)
            continue;
        const auto &info = table.leaf(li);
        for (int d = 0; d < l.dims.size() && d < info.rank; ++d) {
            const DimAssignment &a = l.dims[d];
            if (a.isStatic())
                continue;
            const DimDecl *decl = a.isNamed() ? constraints.dim(a.dim) : nullptr;
            rows << DynamicRow{info.firstDim + d, decl && !decl->isDerived() ? a.dim : QString()};
        }
    }
    return rows;
}

// Distinct root Dims that have the same size in call `c`. From such a call torch
// may tie them together (a sliding-window length equal to the full length, say), so
// a call that tells them apart makes the better example.
int sameSizedDims(const ShapeTable &table, const QVector<DynamicRow> &rows, int c)
{
    QHash<QString, qint64> sizeOf;
    for (const DynamicRow &r : rows) {
        if (!r.root.isEmpty() && !sizeOf.contains(r.root) && table.value(r.row, c) >= 0)
            sizeOf.insert(r.root, table.value(r.row, c));
    }
    QHash<qint64, int> perSize;
    for (auto it = sizeOf.cbegin(); it != sizeOf.cend(); ++it)
        ++perSize[it.value()];
    int same = 0;
    for (int n : std::as_const(perSize))
        same += n - 1;
    return same;
}

} // namespace

int chooseExampleCall(const ShapeTable &table, const ConstraintSet &constraints)
{
    const QVector<DynamicRow> rows = dynamicRows(table, constraints);
    int best = 0, bestGood = -1, bestSame = 0;
    for (int c = 0; c < table.callCount(); ++c) {
        int good = 0;
        for (const DynamicRow &r : rows)
            good += table.value(r.row, c) >= 2 ? 1 : 0;
        const int same = sameSizedDims(table, rows, c);
        if (good > bestGood || (good == bestGood && same < bestSame)) {
            best = c;
            bestGood = good;
            bestSame = same;
        }
    }
    return best;
}

} // namespace dimscope
