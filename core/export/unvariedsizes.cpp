// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/unvariedsizes.h"

#include "constraints/constraintset.h"
#include "inference/dimnaming.h"
#include "inference/shapetable.h"

#include <QMap>

namespace dimscope {

namespace {

// The one size a dim row has in every call that passes the leaf; -1 when it varies
// (ShapeTable::rowVaries) or no call passes it.
qint64 onlySize(const ShapeTable &table, int row)
{
    if (table.rowVaries(row))
        return -1;
    for (int c = 0; c < table.callCount(); ++c) {
        if (table.value(row, c) >= 0)
            return table.value(row, c);
    }
    return -1;
}

// The program's input check on the first dim of a group, with the CLI's leaf path.
QString guardText(const QString &path, int dim, qint64 size)
{
    return QStringLiteral("guard %1.shape[%2] == %3").arg(path).arg(dim).arg(size);
}

} // namespace

QStringList UnvariedSizes::find(const ConstraintSet &exported, const ShapeTable &recorded)
{
    // size -> "path dim d" in leaf order, each with the role inference gives it
    QMap<qint64, QStringList> dimsBySize;
    QMap<qint64, QString> firstGuard;
    for (const LeafConstraint &leaf : exported.leaves()) {
        const int index = recorded.indexOf(leaf.path);
        if (index < 0)
            continue;
        const ShapeTable::LeafInfo &info = recorded.leaf(index);
        for (int d = 0; d < leaf.dims.size() && d < info.rank; ++d) {
            if (leaf.dims.at(d).kind != DimAssignment::Kind::Static)
                continue;
            if (DimNaming::roleOf(info.path, info.arg, d, info.rank).name.isEmpty())
                continue; // a model size (heads, hidden): not something a call varies
            const qint64 size = onlySize(recorded, info.firstDim + d);
            if (size < 0)
                continue;
            dimsBySize[size] << QStringLiteral("%1 dim %2").arg(leaf.path).arg(d);
            if (!firstGuard.contains(size))
                firstGuard.insert(size, guardText(leaf.path, d, size));
        }
    }
    QStringList lines;
    for (auto it = dimsBySize.cbegin(); it != dimsBySize.cend(); ++it) {
        const QStringList &dims = it.value();
        lines << QStringLiteral("%1 %2 %3 in every recorded call, so the program takes %3 only (%4): a call with "
                                "another size is rejected; record calls where %5 to make %6 a Dim")
                     .arg(dims.join(QStringLiteral(", ")), dims.size() == 1 ? QStringLiteral("is") : QStringLiteral("are"))
                     .arg(it.key())
                     .arg(firstGuard.value(it.key()),
                          dims.size() == 1 ? QStringLiteral("it differs") : QStringLiteral("they differ"),
                          dims.size() == 1 ? QStringLiteral("it") : QStringLiteral("them"));
    }
    return lines;
}

} // namespace dimscope
