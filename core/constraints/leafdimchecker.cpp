// SPDX-License-Identifier: GPL-3.0-or-later
#include "constraints/leafdimchecker.h"

#include "constraints/constraintset.h"
#include "inference/shapetable.h"
#include "constraints/violationcollector.h"

namespace dimscope {

namespace {

using Rule = ConstraintViolation::Rule;

QString rangeText(qint64 min, qint64 max)
{
    return max == std::numeric_limits<qint64>::max() ? QStringLiteral("[%1, ∞]").arg(min)
                                                     : QStringLiteral("[%1, %2]").arg(min).arg(max);
}

} // namespace

LeafDimChecker::LeafDimChecker(const ShapeTable &table, const ConstraintSet &set, const ResolvedDims &dims,
                               ViolationCollector *out)
    : m_table(table)
    , m_set(set)
    , m_dims(dims)
    , m_out(out)
    , m_slotValue(qsizetype(dims.rootCount()) * table.callCount(), -1)
    , m_slotRow(qsizetype(dims.rootCount()) * table.callCount(), -1)
{
}

void LeafDimChecker::checkLeaf(int leaf, const LeafConstraint *constraint)
{
    const ShapeTable::LeafInfo &info = m_table.leaf(leaf);
    if (!info.consistent)
        return;
    if (constraint && !checkRank(leaf, *constraint))
        return;
    for (int d = 0; d < info.rank; ++d) {
        const DimAssignment *a = constraint ? &constraint->dims[d] : nullptr;
        if (!a || a->isStatic())
            checkStaticDim(leaf, d);
        else if (a->isNamed())
            checkNamedDim(leaf, d, a->dim);
        // auto / dynamic accept any size
    }
}

bool LeafDimChecker::checkRank(int leaf, const LeafConstraint &constraint)
{
    const ShapeTable::LeafInfo &info = m_table.leaf(leaf);
    if (constraint.dims.size() == info.rank)
        return true;
    const int calls = m_table.callCount();
    int firstCall = 0;
    while (firstCall < calls && !m_table.present(leaf, firstCall))
        ++firstCall;
    m_out->add(Rule::Rank, firstCall < calls ? firstCall : -1, info.path, -1, info.rank, {}, [&] {
        return QStringLiteral("%1 has rank %2 in the capture but the constraint set gives it %3 dimension(s)")
            .arg(info.path)
            .arg(info.rank)
            .arg(constraint.dims.size());
    });
    return false;
}

void LeafDimChecker::checkStaticDim(int leaf, int d)
{
    const ShapeTable::LeafInfo &info = m_table.leaf(leaf);
    const qint64 *v = m_table.row(info.firstDim + d);
    const int calls = m_table.callCount();
    int first = 0;
    while (first < calls && v[first] < 0)
        ++first;
    for (int c = first + 1; c < calls; ++c) {
        if (v[c] >= 0 && v[c] != v[first])
            m_out->add(Rule::StaticValue, c, info.path, d, v[c], {}, [&] {
                return QStringLiteral("call %1, %2 dim %3 = %4: static, but %5 in call %6")
                    .arg(c)
                    .arg(info.path)
                    .arg(d)
                    .arg(v[c])
                    .arg(v[first])
                    .arg(first);
            });
    }
}

int LeafDimChecker::dimIndex(const QString &dimName)
{
    if (dimName != m_lastName) {
        m_lastName = dimName;
        m_lastDim = m_set.indexOfDim(m_lastName);
    }
    return m_lastDim;
}

void LeafDimChecker::checkNamedDim(int leaf, int d, const QString &dimName)
{
    const int at = dimIndex(dimName);
    if (at < 0)
        return;
    const ResolvedDim &rd = m_dims.at(at);
    const qint64 *v = m_table.row(m_table.leaf(leaf).firstDim + d);
    for (int c = 0; c < m_table.callCount(); ++c) {
        const qint64 x = v[c];
        if (x < 0)
            continue;
        const std::optional<qint64> r = rootValueOf(rd, leaf, d, c, x);
        if (!r)
            continue;
        checkRange(rd, leaf, d, c, x, *r);
        checkSharedRoot(rd, leaf, d, c, x, *r);
    }
}

std::optional<qint64> LeafDimChecker::rootValueOf(const ResolvedDim &rd, int leaf, int d, int c, qint64 x)
{
    if (!rd.derived)
        return x;
    qint64 diff = 0; // x - b overflows for a b near -2^63: no root value gives x then
    if (!__builtin_sub_overflow(x, rd.b, &diff) && diff >= 0 && diff % rd.a == 0)
        return diff / rd.a;
    const QString &path = m_table.leaf(leaf).path;
    m_out->add(Rule::DerivedRelation, c, path, d, x, rd.name, [&] {
        return QStringLiteral("call %1, %2 dim %3 = %4: Dim '%5' = %6 cannot be %4 for any size of '%7'")
            .arg(c)
            .arg(path)
            .arg(d)
            .arg(x)
            .arg(rd.name, rd.relation, rd.rootName);
    });
    return std::nullopt;
}

void LeafDimChecker::checkRange(const ResolvedDim &rd, int leaf, int d, int c, qint64 x, qint64 r)
{
    if (r >= rd.min && r <= rd.max)
        return;
    const QString &path = m_table.leaf(leaf).path;
    m_out->add(Rule::Range, c, path, d, x, rd.name, [&] {
        const QString what = rd.derived
            ? QStringLiteral("Dim '%1' = %2 makes '%3' = %4, outside its range %5")
                  .arg(rd.name, rd.relation, rd.rootName)
                  .arg(r)
                  .arg(rangeText(rd.min, rd.max))
            : QStringLiteral("outside the range %1 of Dim '%2'").arg(rangeText(rd.min, rd.max), rd.name);
        return QStringLiteral("call %1, %2 dim %3 = %4: %5").arg(c).arg(path).arg(d).arg(x).arg(what);
    });
}

void LeafDimChecker::checkSharedRoot(const ResolvedDim &rd, int leaf, int d, int c, qint64 x, qint64 r)
{
    const int calls = m_table.callCount();
    qint64 &rootValue = m_slotValue[qsizetype(rd.root) * calls + c];
    int &source = m_slotRow[qsizetype(rd.root) * calls + c];
    const int row = m_table.leaf(leaf).firstDim + d;
    if (rootValue < 0) {
        rootValue = r;
        source = row;
        return;
    }
    if (rootValue == r)
        return;
    const ShapeTable &t = m_table;
    // The root's value was taken from a derived Dim's dimension that this root
    // dimension disagrees with: the derived relation is what breaks, so it is reported
    // on the derived Dim's leaf (the root's own dimensions are as captured).
    const int sourceLeaf = t.leafOfRow(source);
    const DimAssignment sourceDim = m_set.assignment(t.leaf(sourceLeaf).path, t.dimOfRow(source));
    const DimDecl *sourceDecl = sourceDim.isNamed() ? m_set.dim(sourceDim.dim) : nullptr;
    if (!rd.derived && sourceDecl && sourceDecl->isDerived() && t.value(source, c) != rootValue) {
        addDerivedMismatch(c, source, *sourceDecl, row, r);
        // The root's own dimension is the truth from here on: its other dimensions
        // that agree with it are fine, and the derived leaf is reported once.
        rootValue = r;
        source = row;
        return;
    }
    const QString &path = t.leaf(leaf).path;
    const QString other = QStringLiteral("%1 dim %2").arg(t.leaf(t.leafOfRow(source)).path).arg(t.dimOfRow(source));
    const bool derivedInvolved = rd.derived || t.value(source, c) != rootValue;
    m_out->add(derivedInvolved ? Rule::DerivedRelation : Rule::SharedDim, c, path, d, x, rd.name, [&] {
        if (!derivedInvolved)
            return QStringLiteral("call %1, %2 dim %3 = %4: Dim '%5' is %6 there (%7); all its dimensions must be equal")
                .arg(c)
                .arg(path)
                .arg(d)
                .arg(x)
                .arg(rd.name)
                .arg(rootValue)
                .arg(other);
        return derivedMessage(c, row, rd.name, rd.relation, rd.rootName, r, source, rootValue);
    });
}

void LeafDimChecker::addDerivedMismatch(int c, int derivedRow, const DimDecl &derived, int rootRow, qint64 rootValue)
{
    const ShapeTable &t = m_table;
    const qint64 x = t.value(derivedRow, c);
    const qint64 needed = qint64((__int128(x) - derived.b) / derived.a); // |x - b| < 2^64: no overflow in 128 bits
    m_out->add(Rule::DerivedRelation, c, t.leaf(t.leafOfRow(derivedRow)).path, t.dimOfRow(derivedRow), x, derived.name, [&] {
        return derivedMessage(c, derivedRow, derived.name, derived.relationText(), derived.root, needed, rootRow, rootValue);
    });
}

// "call 1, y dim 0 = 9 (Dim 'y_dim0' = x_dim0 + 1) needs 'x_dim0' = 8, but x dim 0 = 7 makes it 7"
QString LeafDimChecker::derivedMessage(int c, int row, const QString &name, const QString &relation, const QString &rootName,
                                       qint64 needed, int otherRow, qint64 otherRootValue) const
{
    const ShapeTable &t = m_table;
    return QStringLiteral("call %1, %2 dim %3 = %4 (Dim '%5' = %6) needs '%7' = %8, but %9 dim %10 = %11 makes it %12")
        .arg(c)
        .arg(t.leaf(t.leafOfRow(row)).path)
        .arg(t.dimOfRow(row))
        .arg(t.value(row, c))
        .arg(name, relation, rootName)
        .arg(needed)
        .arg(t.leaf(t.leafOfRow(otherRow)).path)
        .arg(t.dimOfRow(otherRow))
        .arg(t.value(otherRow, c))
        .arg(otherRootValue);
}

} // namespace dimscope
