// SPDX-License-Identifier: GPL-3.0-or-later
#include "constraints/resolveddims.h"

#include "constraints/constraintset.h"
#include "constraints/violationcollector.h"

#include <QHash>

namespace dimscope {

namespace {

ResolvedDim resolve(const DimDecl &d, const DimDecl &root, int rootSlot)
{
    ResolvedDim r;
    r.root = rootSlot;
    r.derived = d.isDerived();
    r.a = d.a;
    r.b = d.b;
    r.min = root.min.value_or(0);
    r.max = root.max.value_or(std::numeric_limits<qint64>::max());
    r.name = d.name;
    r.rootName = root.name;
    r.relation = d.relationText();
    return r;
}

// The least root value for which a * root + b >= 0 (b < 0 here): ceil(-b / a), in
// 128 bits since -b overflows for b = -2^63.
qint64 minRootFor(const ResolvedDim &r)
{
    const __int128 need = (-__int128(r.b) + r.a - 1) / r.a;
    return qint64(need);
}

void reportNegativeRange(const ResolvedDim &r, ViolationCollector *out)
{
    out->add(ConstraintViolation::Rule::DerivedRange, -1, {}, -1, -1, r.name, [&] {
        return QStringLiteral("derived Dim '%1' = %2 goes below 0 for %3 = %4 (the min of '%3'): torch.export "
                              "rejects it; set the min of '%3' to at least %5")
            .arg(r.name, r.relation, r.rootName)
            .arg(r.min)
            .arg(minRootFor(r));
    });
}

} // namespace

ResolvedDims::ResolvedDims(const ConstraintSet &set, ViolationCollector *out)
{
    const auto &decls = set.dims();
    m_dims.resize(decls.size());
    QHash<QString, int> rootSlot;
    for (const DimDecl &d : decls) {
        if (!d.isDerived())
            rootSlot.insert(d.name, rootSlot.size());
    }
    m_rootCount = rootSlot.size();
    for (int i = 0; i < decls.size(); ++i) {
        const DimDecl &d = decls[i];
        const DimDecl *root = d.isDerived() ? set.dim(d.root) : &d;
        if (!root)
            continue; // the set's invariants exclude this
        m_dims[i] = resolve(d, *root, rootSlot.value(root->name));
        const ResolvedDim &r = m_dims[i];
        // a > 0 and min >= 0: a * min can only overflow upwards, and then it is not below 0.
        qint64 atMin = 0;
        if (r.derived && !__builtin_mul_overflow(r.a, r.min, &atMin) && !__builtin_add_overflow(atMin, r.b, &atMin) && atMin < 0)
            reportNegativeRange(r, out);
    }
}

} // namespace dimscope
