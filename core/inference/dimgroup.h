// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QVector>

#include <limits>

namespace dimscope {

class ShapeTable;

// Leaf dimensions (ShapeTable dim rows) that ShapeInference makes one Dim. The
// grouping step fills the rows and values; naming, derived relations and ranges
// fill in the rest.
struct DimGroup {
    QVector<int> rows;     // ascending
    QVector<qint64> seq;   // merged values per call, -1 where no member is present
    bool varying = false;  // the values differ between calls (not only forced dynamic)
    bool batch = false;    // every member is dim 0 of a batched input or cache (naming fills it)
    qint64 minValue = std::numeric_limits<qint64>::max();
    double meanValue = 0;  // over the calls that have a member
    QString name;
    int root = -1;         // derived: index of the root group; -1 for a root
    qint64 a = 1, b = 0;   // derived: a*root + b
    qint64 rangeMin = 0;   // roots: the proposed min
};

// The varying groups, smallest (mean, then min value) first: derived relations try
// roots in this order, so that A*root + B has B >= 0 whenever A is 1.
QVector<int> varyingGroupsBySize(const QVector<DimGroup> &groups);

// "x dim 1" for the first member, "x dim 1, +2 more" when it has others.
QString membersLabel(const ShapeTable &table, const QVector<int> &rows);

} // namespace dimscope
