// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inference/dimgroup.h"
#include "inference/inferenceresult.h"

namespace dimscope {

// Makes a varying group derived (root, a, b) when its values are a*root + b of a
// smaller group's in every call that has both, with a a positive integer and at
// least 3 distinct root values behind it; among several roots the smallest a, then
// the smallest |b| wins. Returns a note per derived group, and one per relation
// seen with too few distinct values to be trusted (kept as a separate Dim).
QVector<InferenceMessage> deriveRelations(QVector<DimGroup> *groups);

} // namespace dimscope
