// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/proposedconstraints.h"

#include "inference/shapetable.h"

namespace dimscope {

namespace {

// Per dim row: the index of its group, -1 for a static row.
QVector<int> groupOfRows(const ShapeTable &table, const QVector<DimGroup> &groups)
{
    QVector<int> groupOf(table.dimRowCount(), -1);
    for (int i = 0; i < groups.size(); ++i) {
        for (int r : groups[i].rows)
            groupOf[r] = i;
    }
    return groupOf;
}

void addDims(const QVector<DimGroup> &groups, const QVector<int> &autoGroups, ConstraintSet *set)
{
    for (int i = 0; i < groups.size(); ++i) {
        const DimGroup &g = groups[i];
        if (!autoGroups.contains(i) && (g.root < 0 || autoGroups.contains(g.root)))
            set->addRootDim(g.name, g.rangeMin, std::nullopt);
    }
    for (int i = 0; i < groups.size(); ++i) {
        const DimGroup &g = groups[i];
        if (!autoGroups.contains(i) && g.root >= 0 && !autoGroups.contains(g.root))
            set->addDerivedDim(g.name, groups[g.root].name, g.a, g.b);
    }
    // Derived Dims were added after every root: put them all back in group order.
    int pos = 0;
    for (const DimGroup &g : groups) {
        const int at = set->indexOfDim(g.name);
        if (at >= 0)
            set->moveDim(at, pos++);
    }
}

void addLeaves(const ShapeTable &table, const QVector<DimGroup> &groups, const QVector<int> &autoGroups,
               ConstraintSet *set)
{
    const QVector<int> groupOf = groupOfRows(table, groups);
    for (int li = 0; li < table.leafCount(); ++li) {
        const auto &leaf = table.leaf(li);
        if (!leaf.consistent)
            continue;
        QVector<DimAssignment> dims;
        for (int d = 0; d < leaf.rank; ++d) {
            const int g = groupOf[leaf.firstDim + d];
            dims << (g < 0                      ? DimAssignment::makeStatic()
                     : autoGroups.contains(g) ? DimAssignment::makeAuto()
                                              : DimAssignment::named(groups[g].name));
        }
        set->setLeaf(leaf.path, dims);
    }
}

} // namespace

QVector<int> ProposedConstraints::autoGroupsAt(const QVector<DimGroup> &groups, int exampleCall)
{
    QVector<int> autoGroups;
    for (int i = 0; i < groups.size(); ++i) {
        const qint64 v = groups[i].seq.value(exampleCall, -1);
        if (v == 0 || v == 1)
            autoGroups << i;
    }
    return autoGroups;
}

ConstraintSet ProposedConstraints::build(const ShapeTable &table, const QVector<DimGroup> &groups,
                                         const QVector<int> &autoGroups)
{
    ConstraintSet set;
    addDims(groups, autoGroups, &set);
    addLeaves(table, groups, autoGroups, &set);
    return set;
}

QVector<QString> ProposedConstraints::rowDimNames(const ShapeTable &table, const QVector<DimGroup> &groups,
                                                  const QVector<int> &autoGroups)
{
    QVector<QString> names(table.dimRowCount());
    for (int i = 0; i < groups.size(); ++i) {
        const QString name = autoGroups.contains(i) ? QStringLiteral("auto") : groups[i].name;
        for (int r : groups[i].rows)
            names[r] = name;
    }
    return names;
}

} // namespace dimscope
