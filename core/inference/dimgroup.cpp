// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/dimgroup.h"

#include "inference/shapetable.h"

#include <algorithm>

namespace dimscope {

QVector<int> varyingGroupsBySize(const QVector<DimGroup> &groups)
{
    QVector<int> byValue;
    for (int i = 0; i < groups.size(); ++i) {
        if (groups[i].varying)
            byValue << i;
    }
    std::stable_sort(byValue.begin(), byValue.end(), [&](int x, int y) {
        return groups[x].meanValue != groups[y].meanValue ? groups[x].meanValue < groups[y].meanValue
                                                          : groups[x].minValue < groups[y].minValue;
    });
    return byValue;
}

QString membersLabel(const ShapeTable &table, const QVector<int> &rows)
{
    const auto rowLabel = [&](int row) {
        return QStringLiteral("%1 dim %2").arg(table.leaf(table.leafOfRow(row)).path).arg(table.dimOfRow(row));
    };
    QString s = rowLabel(rows.first());
    if (rows.size() > 1)
        s += QStringLiteral(", +%1 more").arg(rows.size() - 1);
    return s;
}

} // namespace dimscope
