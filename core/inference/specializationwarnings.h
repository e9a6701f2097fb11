// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inference/dimgroup.h"
#include "inference/inferenceresult.h"

namespace dimscope {

class ShapeTable;

// One warning per group that is 0 or 1 in some call (torch.export specializes those
// sizes), naming the Dim, its members, the values and the calls. Its advice depends
// on whether the group is an auto group (0 or 1 in the example call itself: capture
// a call where it is >= 2) or not (replay the calls with 0 or 1, or narrow the range).
QVector<InferenceMessage> specializationWarnings(const ShapeTable &table, const QVector<DimGroup> &groups,
                                                 const QVector<int> &autoGroups, int exampleCall);

} // namespace dimscope
