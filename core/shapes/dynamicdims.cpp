// SPDX-License-Identifier: GPL-3.0-or-later
#include "shapes/dynamicdims.h"

#include "shapes/inferenceoptions.h"
#include "shapes/shapetable.h"

namespace dimscope {

namespace {

// Whether the known values (>= 0) of a dim row are not all the same.
bool valuesDiffer(const qint64 *values, int calls)
{
    qint64 first = -1;
    for (int c = 0; c < calls; ++c) {
        if (values[c] < 0)
            continue;
        if (first < 0)
            first = values[c];
        else if (values[c] != first)
            return true;
    }
    return false;
}

} // namespace

DynamicDims DynamicDims::find(const ShapeTable &table, const InferenceOptions &options)
{
    const int rows = table.dimRowCount();
    DynamicDims out;
    out.varying.fill(0, rows);
    out.dynamic.fill(0, rows);
    for (int r = 0; r < rows; ++r) {
        const auto &leaf = table.leaf(table.leafOfRow(r));
        if (!leaf.consistent || leaf.presentCalls == 0)
            continue;
        out.varying[r] = valuesDiffer(table.row(r), table.callCount());
        const bool forced = table.dimOfRow(r) == 0 && options.forcesBatchOf(leaf.arg, leaf.path);
        out.dynamic[r] = out.varying[r] || forced || options.mode == InferenceOptions::Mode::AllDynamic;
        if (out.dynamic[r])
            out.rows << r;
    }
    return out;
}

} // namespace dimscope
