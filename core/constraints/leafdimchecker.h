// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constraints/resolveddims.h"

#include <QString>
#include <QVector>

#include <optional>

namespace dimscope {

class ConstraintSet;
class ShapeTable;
class ViolationCollector;
struct DimDecl;
struct LeafConstraint;

// Checks the leaves of a ShapeTable one at a time against a ConstraintSet: rank,
// static dims that change, and for named Dims the derived relation, the range, and
// that every dim sharing a root Dim has its value in each call (the root's value
// slots remember the first dim that set it, to name it in the message).
class LeafDimChecker
{
public:
    LeafDimChecker(const ShapeTable &table, const ConstraintSet &set, const ResolvedDims &dims, ViolationCollector *out);

    // `constraint` null: the set does not list the leaf, every dim must stay static.
    void checkLeaf(int leaf, const LeafConstraint *constraint);

private:
    bool checkRank(int leaf, const LeafConstraint &constraint);
    void checkStaticDim(int leaf, int dim);
    void checkNamedDim(int leaf, int dim, const QString &dimName);
    // The root value call `c` gives `rd`'s root through dim row `row` (value `x`);
    // none when `x` is not a*root + b for any root (reported).
    std::optional<qint64> rootValueOf(const ResolvedDim &rd, int leaf, int dim, int c, qint64 x);
    void checkRange(const ResolvedDim &rd, int leaf, int dim, int c, qint64 x, qint64 r);
    void checkSharedRoot(const ResolvedDim &rd, int leaf, int dim, int c, qint64 x, qint64 r);
    // A root dimension (rootRow) that disagrees with the root value a derived Dim's
    // dimension (derivedRow) implies: reported on the derived Dim's leaf.
    void addDerivedMismatch(int c, int derivedRow, const DimDecl &derived, int rootRow, qint64 rootValue);
    QString derivedMessage(int c, int row, const QString &name, const QString &relation, const QString &rootName,
                           qint64 needed, int otherRow, qint64 otherRootValue) const;
    int dimIndex(const QString &dimName);

    const ShapeTable &m_table;
    const ConstraintSet &m_set;
    const ResolvedDims &m_dims;
    ViolationCollector *m_out;
    QVector<qint64> m_slotValue; // per root slot and call: the root's value, -1 until a dim sets it
    QVector<int> m_slotRow;      // per root slot and call: the dim row that set it
    QString m_lastName;          // consecutive dims often share a Dim: skip the lookup
    int m_lastDim = -1;
};

} // namespace dimscope
