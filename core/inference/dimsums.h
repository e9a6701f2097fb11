// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inference/dimgroup.h"
#include "inference/inferenceresult.h"

namespace dimscope {

// Notes the root groups whose values are the sum of two other varying groups' in
// every call that has all three (at least 3 such calls, 2 distinct sums): one note
// per group, naming the first pair found. torch.export cannot express a sum of two
// Dims, so the groups stay separate; the note explains why. Skipped beyond 64
// varying groups (the search is cubic).
QVector<InferenceMessage> sumOfTwoDimsNotes(const QVector<DimGroup> &groups);

} // namespace dimscope
