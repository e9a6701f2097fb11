// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/dimsseenapart.h"

#include "constraints/constraintset.h"
#include "inference/dimnaming.h"
#include "inference/shapetable.h"

#include <QHash>
#include <QSet>
#include <QVector>

#include <algorithm>

namespace dimscope {

namespace {

struct LeafDim {
    QString path;
    int dim = 0;
    int row = -1; // in the recorded table; -1 when no recorded call has the leaf
};

// The first recorded call where both dims are present and of different sizes; -1 when
// they agree wherever both are present.
int firstCallApart(const ShapeTable &table, const LeafDim &x, const LeafDim &y)
{
    if (x.row < 0 || y.row < 0)
        return -1;
    for (int c = 0; c < table.callCount(); ++c) {
        const qint64 a = table.value(x.row, c), b = table.value(y.row, c);
        if (a >= 0 && b >= 0 && a != b)
            return c;
    }
    return -1;
}

// The name inference gives the dim's role (tokens_seen), when no Dim has it yet; else
// `<leaf>_dim<i>` (a second past_len is a cache length of another kind of layer).
QString nameFor(const LeafDim &dim, const ShapeTable &table, const QSet<QString> &taken)
{
    const int index = table.indexOf(dim.path);
    if (index >= 0) {
        const ShapeTable::LeafInfo &leaf = table.leaf(index);
        const QString role = DimNaming::roleOf(leaf.path, leaf.arg, dim.dim, leaf.rank).name;
        if (!role.isEmpty() && !taken.contains(role))
            return role;
    }
    return DimNaming::fallbackName(dim.path, dim.dim);
}

// Every root Dim's leaf dims, in leaf order.
QHash<QString, QVector<LeafDim>> leafDimsByRoot(const ConstraintSet &set, const ShapeTable &table)
{
    QHash<QString, QVector<LeafDim>> uses;
    for (const LeafConstraint &leaf : set.leaves()) {
        const int index = table.indexOf(leaf.path);
        for (int d = 0; d < leaf.dims.size(); ++d) {
            const DimAssignment &a = leaf.dims.at(d);
            const DimDecl *decl = a.isNamed() ? set.dim(a.dim) : nullptr;
            if (!decl || decl->isDerived())
                continue;
            const bool known = index >= 0 && d < table.leaf(index).rank;
            uses[a.dim] << LeafDim{leaf.path, d, known ? table.leaf(index).firstDim + d : -1};
        }
    }
    return uses;
}

} // namespace

QStringList DimsSeenApart::split(ConstraintSet *set, const ShapeTable &recorded)
{
    QStringList notes;
    const QHash<QString, QVector<LeafDim>> uses = leafDimsByRoot(*set, recorded);
    QSet<QString> taken;
    for (const DimDecl &d : set->dims())
        taken << d.name;
    const QVector<DimDecl> roots = set->dims();
    for (const DimDecl &root : roots) {
        const QVector<LeafDim> dims = uses.value(root.name);
        // Groups of dims equal wherever recorded together; the first keeps the Dim.
        QVector<QVector<LeafDim>> groups;
        for (const LeafDim &dim : dims) {
            auto it = std::find_if(groups.begin(), groups.end(), [&](const QVector<LeafDim> &g) {
                return firstCallApart(recorded, g.first(), dim) < 0;
            });
            if (it == groups.end())
                groups.append({dim});
            else
                it->append(dim);
        }
        for (int g = 1; g < groups.size(); ++g) {
            const LeafDim &first = groups.at(g).first();
            const QString name = DimNaming::claimUnique(nameFor(first, recorded, taken), &taken);
            if (!set->addRootDim(name, root.min, root.max).isEmpty())
                continue;
            for (const LeafDim &dim : groups.at(g))
                set->assign(dim.path, dim.dim, DimAssignment::named(name));
            notes << QStringLiteral("%1 dim %2 gets its own Dim %3 (apart from %4 in recorded call %5)")
                         .arg(first.path)
                         .arg(first.dim)
                         .arg(name, root.name)
                         .arg(firstCallApart(recorded, groups.first().first(), first));
        }
    }
    return notes;
}

} // namespace dimscope
