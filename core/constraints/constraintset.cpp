// SPDX-License-Identifier: GPL-3.0-or-later
#include "constraints/constraintset.h"

#include "util/terminaltext.h"

#include <QStringList>

namespace dimscope {

static QString rangeError(std::optional<qint64> min, std::optional<qint64> max)
{
    if (min && *min < 0)
        return QStringLiteral("min %1 is negative").arg(*min);
    if (max && *max < 0)
        return QStringLiteral("max %1 is negative").arg(*max);
    if (min && max && *min > *max)
        return QStringLiteral("min %1 is greater than max %2").arg(*min).arg(*max);
    return {};
}

const DimDecl *ConstraintSet::dim(const QString &name) const
{
    const int i = indexOfDim(name);
    return i < 0 ? nullptr : &m_dims[i];
}

int ConstraintSet::indexOfDim(const QString &name) const { return m_dimIndex.value(name, -1); }

const LeafConstraint *ConstraintSet::leaf(const QString &path) const
{
    const int i = indexOfLeaf(path);
    return i < 0 ? nullptr : &m_leaves[i];
}

int ConstraintSet::indexOfLeaf(const QString &path) const { return m_leafIndex.value(path, -1); }

DimAssignment ConstraintSet::assignment(const QString &path, int dim) const
{
    const LeafConstraint *l = leaf(path);
    if (!l || dim < 0 || dim >= l->dims.size())
        return DimAssignment::makeStatic();
    return l->dims[dim];
}

QStringList ConstraintSet::derivedFrom(const QString &root) const
{
    QStringList out;
    for (const DimDecl &d : m_dims) {
        if (d.root == root)
            out << d.name;
    }
    return out;
}

int ConstraintSet::useCount(const QString &name) const
{
    int n = 0;
    for (const LeafConstraint &l : m_leaves) {
        for (const DimAssignment &a : l.dims)
            n += (a.isNamed() && a.dim == name) ? 1 : 0;
    }
    return n;
}

QString ConstraintSet::addDim(const DimDecl &d)
{
    const QString why = dimname::whyInvalid(d.name);
    if (!why.isEmpty())
        return why;
    if (indexOfDim(d.name) >= 0)
        return QStringLiteral("a Dim named '%1' already exists").arg(d.name);
    if (d.isDerived()) {
        const DimDecl *r = dim(d.root);
        if (!r)
            return QStringLiteral("derived Dim '%1': no Dim named %2 to derive from").arg(d.name, TerminalText::quoted(d.root));
        if (r->isDerived())
            return QStringLiteral("derived Dim '%1': '%2' is itself derived; derive from its root '%3'")
                .arg(d.name, d.root, r->root);
        if (d.a <= 0)
            return QStringLiteral("derived Dim '%1': the multiplier must be a positive integer, not %2")
                .arg(d.name)
                .arg(d.a);
        if (d.min || d.max)
            return QStringLiteral("derived Dim '%1': its range follows its root, it cannot have its own").arg(d.name);
    } else {
        const QString r = rangeError(d.min, d.max);
        if (!r.isEmpty())
            return QStringLiteral("Dim '%1': %2").arg(d.name, r);
    }
    m_dimIndex.insert(d.name, m_dims.size());
    m_dims.append(d);
    return {};
}

QString ConstraintSet::addRootDim(const QString &name, std::optional<qint64> min, std::optional<qint64> max)
{
    return addDim(DimDecl::makeRoot(name, min, max));
}

QString ConstraintSet::addDerivedDim(const QString &name, const QString &root, qint64 a, qint64 b)
{
    return addDim(DimDecl::makeDerived(name, root, a, b));
}

void ConstraintSet::replaceUses(const QString &from, const DimAssignment &to)
{
    for (LeafConstraint &l : m_leaves) {
        for (DimAssignment &a : l.dims) {
            if (a.isNamed() && a.dim == from)
                a = to;
        }
    }
}

QString ConstraintSet::removeDim(const QString &name, DimAssignment replacement)
{
    const int i = indexOfDim(name);
    if (i < 0)
        return QStringLiteral("no Dim named '%1'").arg(name);
    const QStringList derived = derivedFrom(name);
    if (!derived.isEmpty())
        return QStringLiteral("Dim '%1' is the root of %2; remove or re-root them first")
            .arg(name, derived.join(QStringLiteral(", ")));
    if (replacement.isNamed() && (replacement.dim == name || indexOfDim(replacement.dim) < 0))
        return QStringLiteral("cannot replace Dim '%1' by '%2'").arg(name, replacement.dim);
    m_dims.remove(i);
    reindexDims();
    replaceUses(name, replacement);
    return {};
}

QString ConstraintSet::renameDim(const QString &oldName, const QString &newName)
{
    const int i = indexOfDim(oldName);
    if (i < 0)
        return QStringLiteral("no Dim named '%1'").arg(oldName);
    if (oldName == newName)
        return {};
    const QString why = dimname::whyInvalid(newName);
    if (!why.isEmpty())
        return why;
    if (indexOfDim(newName) >= 0)
        return QStringLiteral("a Dim named '%1' already exists").arg(newName);
    m_dims[i].name = newName;
    m_dimIndex.remove(oldName);
    m_dimIndex.insert(newName, i);
    for (DimDecl &d : m_dims) {
        if (d.root == oldName)
            d.root = newName;
    }
    replaceUses(oldName, DimAssignment::named(newName));
    return {};
}

QString ConstraintSet::setRange(const QString &name, std::optional<qint64> min, std::optional<qint64> max)
{
    const int i = indexOfDim(name);
    if (i < 0)
        return QStringLiteral("no Dim named '%1'").arg(name);
    if (m_dims[i].isDerived())
        return QStringLiteral("Dim '%1' is derived from '%2': set the range of '%2'").arg(name, m_dims[i].root);
    const QString r = rangeError(min, max);
    if (!r.isEmpty())
        return QStringLiteral("Dim '%1': %2").arg(name, r);
    m_dims[i].min = min;
    m_dims[i].max = max;
    return {};
}

QString ConstraintSet::makeDerived(const QString &name, const QString &root, qint64 a, qint64 b)
{
    const int i = indexOfDim(name);
    if (i < 0)
        return QStringLiteral("no Dim named '%1'").arg(name);
    const int r = indexOfDim(root);
    if (r < 0)
        return QStringLiteral("no Dim named '%1' to derive '%2' from").arg(root, name);
    if (a <= 0)
        return QStringLiteral("derived Dim '%1': the multiplier must be a positive integer, not %2").arg(name).arg(a);
    // Derive from the root of a derived Dim: x = a*(a2*R + b2) + b.
    QString base = root;
    qint64 ea = a, eb = b;
    if (m_dims[r].isDerived()) {
        base = m_dims[r].root;
        ea = a * m_dims[r].a;
        eb = a * m_dims[r].b + b;
    }
    if (base == name)
        return QStringLiteral("Dim '%1' cannot be derived from itself").arg(name);
    QVector<DimDecl> dims = m_dims;
    // Dims derived from `name` now hang on `base`: c = a3*name + b3 = a3*ea*base + a3*eb + b3.
    for (DimDecl &d : dims) {
        if (d.root == name) {
            d.root = base;
            d.b = d.a * eb + d.b;
            d.a = d.a * ea;
        }
    }
    DimDecl &target = dims[i];
    target.root = base;
    target.a = ea;
    target.b = eb;
    target.min.reset();
    target.max.reset();
    m_dims = dims;
    return {};
}

QString ConstraintSet::makeRoot(const QString &name, std::optional<qint64> min, std::optional<qint64> max)
{
    const int i = indexOfDim(name);
    if (i < 0)
        return QStringLiteral("no Dim named '%1'").arg(name);
    const QString r = rangeError(min, max);
    if (!r.isEmpty())
        return QStringLiteral("Dim '%1': %2").arg(name, r);
    m_dims[i].root.clear();
    m_dims[i].a = 1;
    m_dims[i].b = 0;
    m_dims[i].min = min;
    m_dims[i].max = max;
    return {};
}

QString ConstraintSet::mergeDims(const QString &keep, const QString &drop)
{
    const int k = indexOfDim(keep);
    const int d = indexOfDim(drop);
    if (k < 0)
        return QStringLiteral("no Dim named '%1'").arg(keep);
    if (d < 0)
        return QStringLiteral("no Dim named '%1'").arg(drop);
    if (k == d)
        return QStringLiteral("cannot merge Dim '%1' with itself").arg(keep);
    if (m_dims[k].root == drop)
        return QStringLiteral("'%1' is derived from '%2' (%3): they cannot be equal")
            .arg(keep, drop, m_dims[k].relationText());
    if (m_dims[d].root == keep)
        return QStringLiteral("'%1' is derived from '%2' (%3): they cannot be equal")
            .arg(drop, keep, m_dims[d].relationText());
    // Dims derived from `drop` are re-expressed on `keep` (or on keep's root).
    ConstraintSet next = *this;
    for (const QString &child : derivedFrom(drop)) {
        const DimDecl c = *dim(child);
        const QString err = next.makeDerived(child, keep, c.a, c.b);
        if (!err.isEmpty())
            return err;
    }
    next.m_dims.remove(next.indexOfDim(drop));
    next.reindexDims();
    next.replaceUses(drop, DimAssignment::named(keep));
    *this = next;
    return {};
}

QString ConstraintSet::specializeDim(const QString &name)
{
    return removeDimTree(name, DimAssignment::makeStatic());
}

QString ConstraintSet::unnameDim(const QString &name)
{
    return removeDimTree(name, DimAssignment::makeDynamic());
}

QString ConstraintSet::removeDimTree(const QString &name, const DimAssignment &replacement)
{
    if (indexOfDim(name) < 0)
        return QStringLiteral("no Dim named '%1'").arg(name);
    // The derived Dims first: removeDim refuses a root that still has them.
    for (const QString &derived : derivedFrom(name))
        removeDim(derived, replacement);
    return removeDim(name, replacement);
}

QString ConstraintSet::moveDim(int from, int to)
{
    if (from < 0 || from >= m_dims.size() || to < 0 || to >= m_dims.size())
        return QStringLiteral("no Dim at position %1 or %2").arg(from).arg(to);
    m_dims.move(from, to);
    reindexDims();
    return {};
}

QString ConstraintSet::setDimOrder(const QStringList &names)
{
    if (names.size() != m_dims.size())
        return QStringLiteral("%1 names for %2 Dims").arg(names.size()).arg(m_dims.size());
    QVector<DimDecl> ordered;
    ordered.reserve(m_dims.size());
    QHash<QString, int> seen;
    for (const QString &name : names) {
        const int i = indexOfDim(name);
        if (i < 0 || seen.contains(name))
            return QStringLiteral("'%1' is no Dim of the set or is named twice").arg(name);
        seen.insert(name, i);
        ordered.append(m_dims[i]);
    }
    m_dims = ordered;
    reindexDims();
    return {};
}

QString ConstraintSet::setLeaf(const QString &path, const QVector<DimAssignment> &dims)
{
    if (path.isEmpty())
        return QStringLiteral("a leaf needs a key path");
    for (int i = 0; i < dims.size(); ++i) {
        if (dims[i].isNamed() && indexOfDim(dims[i].dim) < 0)
            return QStringLiteral("%1 dim %2: no Dim named '%3'").arg(path).arg(i).arg(dims[i].dim);
    }
    const int i = indexOfLeaf(path);
    if (i >= 0) {
        m_leaves[i].dims = dims;
    } else {
        m_leafIndex.insert(path, m_leaves.size());
        m_leaves.append(LeafConstraint{path, dims});
    }
    return {};
}

QString ConstraintSet::removeLeaf(const QString &path)
{
    const int i = indexOfLeaf(path);
    if (i < 0)
        return QStringLiteral("no leaf '%1' in the constraint set").arg(path);
    m_leaves.remove(i);
    reindexLeaves();
    return {};
}

QString ConstraintSet::assign(const QString &path, int dim, const DimAssignment &a)
{
    const int i = indexOfLeaf(path);
    if (i < 0)
        return QStringLiteral("no leaf '%1' in the constraint set").arg(path);
    if (dim < 0 || dim >= m_leaves[i].dims.size())
        return QStringLiteral("%1 has %2 dimension(s), there is no dim %3").arg(path).arg(m_leaves[i].dims.size()).arg(dim);
    if (a.isNamed() && indexOfDim(a.dim) < 0)
        return QStringLiteral("no Dim named '%1'").arg(a.dim);
    m_leaves[i].dims[dim] = a;
    return {};
}

QString ConstraintSet::checkInvariants() const
{
    QHash<QString, int> seen;
    for (int i = 0; i < m_dims.size(); ++i) {
        const DimDecl &d = m_dims[i];
        const QString why = dimname::whyInvalid(d.name);
        if (!why.isEmpty())
            return QStringLiteral("dims[%1]: %2").arg(i).arg(why);
        if (seen.contains(d.name))
            return QStringLiteral("dims[%1]: the name '%2' is already used by dims[%3]").arg(i).arg(d.name).arg(seen.value(d.name));
        seen.insert(d.name, i);
    }
    for (int i = 0; i < m_dims.size(); ++i) {
        const DimDecl &d = m_dims[i];
        if (d.isDerived()) {
            const DimDecl *r = dim(d.root);
            if (!r)
                return QStringLiteral("dims[%1] ('%2'): root %3 is not a Dim of this set").arg(i).arg(d.name, TerminalText::quoted(d.root));
            if (r->isDerived())
                return QStringLiteral("dims[%1] ('%2'): root '%3' is itself derived").arg(i).arg(d.name, d.root);
            if (d.a <= 0)
                return QStringLiteral("dims[%1] ('%2'): \"a\" must be a positive integer, not %3").arg(i).arg(d.name).arg(d.a);
        } else {
            const QString r = rangeError(d.min, d.max);
            if (!r.isEmpty())
                return QStringLiteral("dims[%1] ('%2'): %3").arg(i).arg(d.name, r);
        }
    }
    for (const LeafConstraint &l : m_leaves) {
        for (int j = 0; j < l.dims.size(); ++j) {
            if (l.dims[j].isNamed() && !seen.contains(l.dims[j].dim))
                return QStringLiteral("leaves['%1'][%2]: '%3' is not a Dim of this set (nor static, auto, dynamic)")
                    .arg(l.path)
                    .arg(j)
                    .arg(l.dims[j].dim);
        }
    }
    return {};
}

void ConstraintSet::reindexDims()
{
    m_dimIndex.clear();
    for (int i = 0; i < m_dims.size(); ++i)
        m_dimIndex.insert(m_dims[i].name, i);
}

void ConstraintSet::reindexLeaves()
{
    m_leafIndex.clear();
    for (int i = 0; i < m_leaves.size(); ++i)
        m_leafIndex.insert(m_leaves[i].path, i);
}

} // namespace dimscope
