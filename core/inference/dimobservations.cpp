// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/dimobservations.h"

#include "inference/shapetable.h"

namespace dimscope {

QVector<DimObservation> dimObservations(const ShapeTable &table, const QVector<QString> &rowDimNames)
{
    QVector<DimObservation> observations;
    const int rows = table.dimRowCount();
    observations.reserve(rows);
    for (int r = 0; r < rows; ++r) {
        DimObservation o;
        o.leaf = table.leafOfRow(r);
        o.path = table.leaf(o.leaf).path;
        o.dim = table.dimOfRow(r);
        o.values = QVector<qint64>(table.row(r), table.row(r) + table.callCount());
        o.dynamic = !rowDimNames[r].isEmpty();
        o.dimName = rowDimNames[r]; // "auto" for Dim.AUTO
        observations << o;
    }
    return observations;
}

} // namespace dimscope
