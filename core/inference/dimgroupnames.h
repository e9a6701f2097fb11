// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inference/dimgroup.h"

namespace dimscope {

class ShapeTable;

// Names each group, in order: the highest-priority conventional role among its
// members (batch, seq_len, past_len, ...) when no earlier group took that name,
// otherwise `<leaf>_dim<i>` of its first member; `_2`, `_3`, ... keep names unique.
void nameDimGroups(const ShapeTable &table, QVector<DimGroup> *groups);

} // namespace dimscope
