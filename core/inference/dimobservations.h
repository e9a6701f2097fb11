// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inference/inferenceresult.h"

namespace dimscope {

class ShapeTable;

// One DimObservation per dim row of the table, in row order: its leaf, dimension,
// values per call, and the Dim `rowDimNames` gives it (dynamic when there is one).
QVector<DimObservation> dimObservations(const ShapeTable &table, const QVector<QString> &rowDimNames);

} // namespace dimscope
