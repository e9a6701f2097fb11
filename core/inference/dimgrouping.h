// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inference/dimgroup.h"

namespace dimscope {

class ShapeTable;
struct DynamicDims;

// Groups the dynamic leaf dimensions into Dims: varying dims whose values are equal
// in every call where both are known (and change within that overlap) share one
// group; with a forced batch (`shareConstantBatch`), constant dims 0 of the same
// value share one; any other constant dim is a group of its own. Leaves present in
// more calls are placed first, so that a leaf missing from some calls joins the
// group its overlap matches. Groups come ordered by their first dim row.
QVector<DimGroup> groupDynamicDims(const ShapeTable &table, const DynamicDims &dynamic, bool shareConstantBatch);

} // namespace dimscope
