// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/dimgroupnames.h"

#include "inference/dimnaming.h"
#include "inference/shapetable.h"

#include <QSet>

namespace dimscope {

namespace {

bool everyMemberIsBatch(const ShapeTable &table, const DimGroup &group)
{
    for (int r : group.rows) {
        const auto &leaf = table.leaf(table.leafOfRow(r));
        if (DimNaming::roleOf(leaf.path, leaf.arg, table.dimOfRow(r), leaf.rank).name != QLatin1String("batch"))
            return false;
    }
    return !group.rows.isEmpty();
}

DimNaming::Role bestRole(const ShapeTable &table, const DimGroup &group)
{
    DimNaming::Role best;
    for (int r : group.rows) {
        const auto &leaf = table.leaf(table.leafOfRow(r));
        const DimNaming::Role role = DimNaming::roleOf(leaf.path, leaf.arg, table.dimOfRow(r), leaf.rank);
        if (role.priority > best.priority)
            best = role;
    }
    return best;
}

} // namespace

void nameDimGroups(const ShapeTable &table, QVector<DimGroup> *groups)
{
    QSet<QString> taken;
    for (DimGroup &g : *groups) {
        const DimNaming::Role best = bestRole(table, g);
        const int first = g.rows.first();
        const QString wanted = !best.name.isEmpty() && !taken.contains(best.name)
            ? best.name
            : DimNaming::fallbackName(table.leaf(table.leafOfRow(first)).path, table.dimOfRow(first));
        g.name = DimNaming::claimUnique(wanted, &taken);
        g.batch = everyMemberIsBatch(table, g);
    }
}

} // namespace dimscope
