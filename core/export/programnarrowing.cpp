// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/programnarrowing.h"

#include "constraints/constraintset.h"
#include "inference/shapetable.h"
#include "pt2/torchrangetext.h"

#include <QHash>
#include <QSet>

#include <algorithm>
#include <limits>
#include <optional>

namespace dimscope {

namespace {

// A Dim's values as torch takes them: a root's [min, max] (no min: 0, torch's
// default), a derived Dim's a*root + b over its root's range. Empty for an unknown Dim.
struct Range {
    qint64 min = 0;
    std::optional<qint64> max;
};

std::optional<Range> rangeOf(const ConstraintSet &set, const QString &name)
{
    const DimDecl *d = set.dim(name);
    if (!d)
        return std::nullopt;
    const DimDecl *root = d->isDerived() ? set.dim(d->root) : d;
    if (!root)
        return std::nullopt;
    Range r{root->min.value_or(0), root->max};
    if (d->isDerived()) {
        r.min = d->a * r.min + d->b;
        if (r.max)
            r.max = d->a * *r.max + d->b;
    }
    return r;
}

QString rangeText(const Range &r)
{
    return TorchRangeText::range(r.min, r.max);
}

// Whether `got` leaves out values of `asked`.
bool narrower(const Range &asked, const Range &got)
{
    return got.min > asked.min || (got.max && (!asked.max || *got.max < *asked.max));
}

// What the user asked a dimension to be, as the warning quotes it.
QString askedText(const ConstraintSet &asked, const DimAssignment &a)
{
    if (a.kind == DimAssignment::Kind::Dynamic)
        return QStringLiteral("Dim.DYNAMIC");
    const std::optional<Range> r = rangeOf(asked, a.dim);
    return r ? QStringLiteral("%1 %2").arg(a.dim, rangeText(*r)) : a.dim;
}

// The distinct sizes a dimension has over the calls that pass its leaf: "2", "2, 3".
QString sizesText(const ShapeTable &table, const QString &path, int dim)
{
    const int leaf = table.indexOf(path);
    if (leaf < 0 || dim >= table.leaf(leaf).rank)
        return QStringLiteral("static");
    const int row = table.leaf(leaf).firstDim + dim;
    QVector<qint64> sizes;
    for (int c = 0; c < table.callCount(); ++c) {
        const qint64 v = table.value(row, c);
        if (v >= 0 && !sizes.contains(v))
            sizes << v;
    }
    std::sort(sizes.begin(), sizes.end());
    QStringList texts;
    for (qint64 v : std::as_const(sizes))
        texts << QString::number(v);
    return texts.isEmpty() ? QStringLiteral("static") : texts.join(QStringLiteral(", "));
}

bool wantedDynamic(const DimAssignment &a)
{
    return a.kind == DimAssignment::Kind::Dynamic || a.kind == DimAssignment::Kind::Named;
}

} // namespace

QStringList ProgramNarrowing::find(const ConstraintSet &asked, const ConstraintSet &exported, const ShapeTable &table)
{
    // The dimensions made static, grouped by what was asked and the size they kept (a
    // Dim's leaves are one line: "input_ids dim 1, attention_mask dim 1 are 5 only"), then
    // each cut range once per Dim.
    QStringList staticKeys, ranges;
    QHash<QString, QStringList> staticDims;
    QSet<QString> rangesSaid;
    for (const LeafConstraint &leaf : asked.leaves()) {
        for (int d = 0; d < leaf.dims.size(); ++d) {
            const DimAssignment &a = leaf.dims.at(d);
            if (!wantedDynamic(a))
                continue;
            const DimAssignment got = exported.assignment(leaf.path, d);
            if (got.isStatic()) {
                const QString key = QStringLiteral("%1 only (asked: %2)").arg(sizesText(table, leaf.path, d), askedText(asked, a));
                if (!staticDims.contains(key))
                    staticKeys << key;
                staticDims[key] << QStringLiteral("%1 dim %2").arg(leaf.path).arg(d);
                continue;
            }
            if (!got.isNamed() || !a.isNamed())
                continue;
            const std::optional<Range> before = rangeOf(asked, a.dim), after = rangeOf(exported, got.dim);
            if (!before || !after || !narrower(*before, *after) || rangesSaid.contains(got.dim))
                continue;
            rangesSaid << got.dim;
            ranges << QStringLiteral("%1 %2 (asked: %3 %4)").arg(got.dim, rangeText(*after), a.dim, rangeText(*before));
        }
    }
    QStringList lines;
    for (const QString &key : std::as_const(staticKeys)) {
        const QStringList &dims = staticDims.value(key);
        lines << QStringLiteral("%1 %2 %3").arg(dims.join(QStringLiteral(", ")),
                                                dims.size() == 1 ? QStringLiteral("is") : QStringLiteral("are"), key);
    }
    return lines + ranges;
}

} // namespace dimscope
