// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constraints/dimassignment.h"
#include "constraints/dimdecl.h"

#include <QHash>
#include <QString>
#include <QVector>

#include <optional>

namespace dimscope {

// The constraints of one tensor leaf: one assignment per dimension, in order.
struct LeafConstraint {
    QString path; // key path (docs/capture-format.md)
    QVector<DimAssignment> dims;

    friend bool operator==(const LeafConstraint &x, const LeafConstraint &y)
    {
        return x.path == y.path && x.dims == y.dims;
    }
};

// The user's dynamic-shape decisions (docs/spec-format.md, "Constraint set"): named
// Dims plus, per tensor leaf, what each dimension is. A copyable value: every edit is a
// small operation that either succeeds (returns an empty string) or leaves the set
// untouched and says why, so the GUI can wrap edits as undo commands.
//
// Invariants kept by every edit: Dim names are unique and valid (dimname::isValid);
// a derived Dim's root exists and is a root Dim; a > 0; min <= max; every Named
// assignment names an existing Dim.
class ConstraintSet
{
public:
    const QVector<DimDecl> &dims() const { return m_dims; }
    const QVector<LeafConstraint> &leaves() const { return m_leaves; }
    const DimDecl *dim(const QString &name) const;
    int indexOfDim(const QString &name) const;
    const LeafConstraint *leaf(const QString &path) const;
    int indexOfLeaf(const QString &path) const;
    // The assignment of one dimension; static for unlisted leaves or dims past the rank.
    DimAssignment assignment(const QString &path, int dim) const;
    // Names of the Dims derived from `root`, in order.
    QStringList derivedFrom(const QString &root) const;
    // Number of leaf dimensions assigned to `name`.
    int useCount(const QString &name) const;
    bool isEmpty() const { return m_dims.isEmpty() && m_leaves.isEmpty(); }

    // ---- edits: each returns an error (empty = applied) ----
    QString addDim(const DimDecl &dim);
    QString addRootDim(const QString &name, std::optional<qint64> min = std::nullopt,
                       std::optional<qint64> max = std::nullopt);
    QString addDerivedDim(const QString &name, const QString &root, qint64 a, qint64 b);
    // Removes a Dim; the leaf dimensions that used it become `replacement` (static by
    // default). Fails while derived Dims still use it as root.
    QString removeDim(const QString &name, DimAssignment replacement = DimAssignment::makeStatic());
    // Renames a Dim everywhere (leaves and derived roots).
    QString renameDim(const QString &oldName, const QString &newName);
    QString setRange(const QString &name, std::optional<qint64> min, std::optional<qint64> max);
    // Turns an existing Dim into `a * root + b`. Dims derived from it are re-expressed on
    // `root` (linear relations compose).
    QString makeDerived(const QString &name, const QString &root, qint64 a, qint64 b);
    // Turns a derived Dim back into a root Dim with the given range.
    QString makeRoot(const QString &name, std::optional<qint64> min = std::nullopt,
                     std::optional<qint64> max = std::nullopt);
    // Every use of `drop` becomes `keep`; Dims derived from `drop` are re-rooted on
    // `keep`; `drop` is removed. `keep`'s range is kept.
    QString mergeDims(const QString &keep, const QString &drop);
    // Removes a Dim and the Dims derived from it, making all their uses static
    // (torch's `NAME = INT` fix).
    QString specializeDim(const QString &name);
    // Removes a Dim and the Dims derived from it, making all their uses Dim.DYNAMIC:
    // dynamic, unnamed and unbounded, torch's guards on them left to the program.
    QString unnameDim(const QString &name);
    // Moves a Dim in the display order.
    QString moveDim(int from, int to);
    // Puts the Dims in the order of `names` (each Dim of the set, once).
    QString setDimOrder(const QStringList &names);
    // Adds or replaces a leaf's entries.
    QString setLeaf(const QString &path, const QVector<DimAssignment> &dims);
    QString removeLeaf(const QString &path);
    QString assign(const QString &path, int dim, const DimAssignment &assignment);
    QString makeStatic(const QString &path, int dim) { return assign(path, dim, DimAssignment::makeStatic()); }
    QString makeAuto(const QString &path, int dim) { return assign(path, dim, DimAssignment::makeAuto()); }
    QString makeDynamic(const QString &path, int dim) { return assign(path, dim, DimAssignment::makeDynamic()); }

    // Checks the invariants above (used after reading a document); empty when valid.
    QString checkInvariants() const;

    friend bool operator==(const ConstraintSet &x, const ConstraintSet &y)
    {
        return x.m_dims == y.m_dims && x.m_leaves == y.m_leaves;
    }
    friend bool operator!=(const ConstraintSet &x, const ConstraintSet &y) { return !(x == y); }

private:
    void replaceUses(const QString &from, const DimAssignment &to);
    QString removeDimTree(const QString &name, const DimAssignment &replacement);
    void reindexLeaves();
    void reindexDims();

    QVector<DimDecl> m_dims;
    QVector<LeafConstraint> m_leaves;
    // Name -> index, derived from the vectors: a set read from a file may hold 10^5
    // Dims, and a linear search per lookup made reading one take 36 s.
    QHash<QString, int> m_dimIndex;
    QHash<QString, int> m_leafIndex; // path -> index in m_leaves
};

} // namespace dimscope
