// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/derivedrelations.h"

#include "constraints/dimdecl.h"
#include "inference/shapetable.h"

#include <QSet>

#include <cstdlib>

namespace dimscope {

namespace {

struct Relation {
    bool fits = false;
    qint64 a = 1, b = 0;
    int distinct = 0; // distinct x values supporting it
    QVector<int> calls;
};

// y == a*x + b (a a positive integer) in every call where both are known.
Relation relate(const QVector<qint64> &x, const QVector<qint64> &y)
{
    Relation r;
    int c0 = -1, c1 = -1;
    for (int c = 0; c < x.size(); ++c) {
        if (x[c] < 0 || y[c] < 0)
            continue;
        if (c0 < 0)
            c0 = c;
        else if (c1 < 0 && x[c] != x[c0])
            c1 = c;
    }
    if (c0 < 0 || c1 < 0)
        return r;
    const qint64 dx = x[c1] - x[c0], dy = y[c1] - y[c0];
    if (dy % dx != 0 || dy / dx <= 0)
        return r;
    r.a = dy / dx;
    r.b = y[c0] - r.a * x[c0];
    QSet<qint64> xs;
    for (int c = 0; c < x.size(); ++c) {
        if (x[c] < 0 || y[c] < 0)
            continue;
        if (y[c] != r.a * x[c] + r.b)
            return r;
        xs.insert(x[c]);
        r.calls << c;
    }
    r.fits = true;
    r.distinct = xs.size();
    return r;
}

QString relationText(const DimGroup &derived, const DimGroup &root, qint64 a, qint64 b)
{
    return DimDecl::makeDerived(derived.name, root.name, a, b).relationText();
}

InferenceMessage tooFewValuesNote(const DimGroup &g, const DimGroup &root, const Relation &rel)
{
    return {InferenceMessage::Severity::Note,
            QStringLiteral("'%1' = %2 in the captured calls, but only %3 distinct values support it: kept "
                           "as a separate Dim (make it derived by hand if the model requires it)")
                .arg(g.name, relationText(g, root, rel.a, rel.b))
                .arg(rel.distinct),
            g.name, {}, rel.calls};
}

InferenceMessage derivedNote(const DimGroup &g, const DimGroup &root, const QVector<int> &calls)
{
    return {InferenceMessage::Severity::Note,
            QStringLiteral("'%1' = %2 in every call that has both (calls %3): proposed as a derived Dim")
                .arg(g.name, relationText(g, root, g.a, g.b), describeCalls(calls)),
            g.name, {}, calls};
}

} // namespace

QVector<InferenceMessage> deriveRelations(QVector<DimGroup> *groupsPtr)
{
    QVector<DimGroup> &groups = *groupsPtr;
    QVector<InferenceMessage> notes;
    QVector<int> roots;
    for (int gi : varyingGroupsBySize(groups)) {
        int bestRoot = -1;
        Relation best;
        for (int ri : std::as_const(roots)) {
            const Relation rel = relate(groups[ri].seq, groups[gi].seq);
            if (!rel.fits)
                continue;
            if (rel.distinct < 3) {
                notes << tooFewValuesNote(groups[gi], groups[ri], rel);
                continue;
            }
            if (bestRoot < 0 || rel.a < best.a || (rel.a == best.a && std::llabs(rel.b) < std::llabs(best.b))) {
                bestRoot = ri;
                best = rel;
            }
        }
        if (bestRoot < 0) {
            roots << gi;
            continue;
        }
        DimGroup &g = groups[gi];
        g.root = bestRoot;
        g.a = best.a;
        g.b = best.b;
        notes << derivedNote(g, groups[bestRoot], best.calls);
    }
    return notes;
}

} // namespace dimscope
