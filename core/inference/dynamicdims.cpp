// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/dynamicdims.h"

#include "inference/inferenceoptions.h"
#include "inference/shapetable.h"

namespace dimscope {

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
        out.varying[r] = table.rowVaries(r);
        const bool forced = table.dimOfRow(r) == 0 && options.forcesBatchOf(leaf.arg, leaf.path);
        out.dynamic[r] = out.varying[r] || forced || options.mode == InferenceOptions::Mode::AllDynamic;
        if (out.dynamic[r])
            out.rows << r;
    }
    return out;
}

} // namespace dimscope
