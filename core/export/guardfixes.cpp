// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/guardfixes.h"

#include "export/exportphases.h"
#include "export/guardexpression.h"
#include "export/suggestedfixapplier.h"

#include <QSet>

#include <algorithm>
#include <functional>
#include <utility>

namespace dimscope {

namespace {

// How far past the recorded values a guard is followed: its constants bound where it
// can change (256 in `seq_len <= 256`), and the scan never exceeds this many values.
constexpr qint64 kScanSpan = qint64(1) << 16;

// The roots of the Dims `g` names (each a Dim of `set`); empty when a name is not a Dim.
QStringList rootsOf(const GuardExpression &g, const ConstraintSet &set)
{
    QStringList roots;
    for (const QString &name : g.names()) {
        const DimDecl *d = set.dim(name);
        if (!d)
            return {};
        const QString root = d->isDerived() ? d->root : d->name;
        if (!roots.contains(root))
            roots << root;
    }
    return roots;
}

// The values of the Dims `g` names at `root` = v, each following from that root.
QHash<QString, qint64> valuesAt(const GuardExpression &g, const ConstraintSet &set, qint64 v)
{
    QHash<QString, qint64> values;
    for (const QString &name : g.names()) {
        const DimDecl *d = set.dim(name);
        values.insert(name, d->isDerived() ? d->a * v + d->b : v);
    }
    return values;
}

std::optional<bool> holdsAt(const GuardExpression &g, const ConstraintSet &set, qint64 v)
{
    return g.holds(valuesAt(g, set, v));
}

qint64 scanLimit(const GuardExpression &g, qint64 from)
{
    qint64 largest = 0;
    for (qint64 c : g.constants())
        largest = std::max(largest, std::min(c, kScanSpan));
    return from + std::min(kScanSpan, 2 * largest + 2);
}

QString where(const ShapeExplanation &e)
{
    if (!e.location.isValid())
        return QStringLiteral("at the inputs");
    // transformers/masking_utils.py:208, not the whole site-packages path.
    return QStringLiteral("%1:%2").arg(e.location.file.section(QLatin1Char('/'), -2)).arg(e.location.line);
}

// The bounds of `d` narrowed to the run of values around [lo, hi] for which `holds` is
// true: from the Dim's own bounds, scanning at most kScanSpan values (and the guard's
// constants' reach, where the Dim has no max) outward from the recorded values.
std::pair<std::optional<qint64>, std::optional<qint64>> runAround(const DimDecl &d, const GuardExpression &g, qint64 lo,
                                                                 qint64 hi, const std::function<bool(qint64)> &holds)
{
    std::optional<qint64> min = d.min, max = d.max;
    for (qint64 v = lo - 1; v >= std::max<qint64>(d.min.value_or(0), lo - kScanSpan); --v) {
        if (!holds(v)) {
            min = v + 1;
            break;
        }
    }
    const qint64 limit = d.max ? std::min(*d.max, hi + kScanSpan) : scanLimit(g, hi);
    for (qint64 v = hi + 1; v <= limit; ++v) {
        if (!holds(v)) {
            max = v - 1;
            break;
        }
    }
    return {min, max};
}

// `root = Dim('root', min=…, max=…)`, its note `why` followed by the range and the
// recorded values it keeps.
GuardFixes::Fix rangeFix(const QString &root, std::optional<qint64> min, std::optional<qint64> max, qint64 lo, qint64 hi,
                         const QString &why)
{
    QString args;
    if (min)
        args += QStringLiteral(", min=%1").arg(*min);
    if (max)
        args += QStringLiteral(", max=%1").arg(*max);
    return GuardFixes::Fix{QStringLiteral("%1 = Dim('%1'%2)").arg(root, args),
                           QStringLiteral("%1 for %2 in [%3, %4], which has every recorded %2 (%5..%6)")
                               .arg(why, root)
                               .arg(min.value_or(0))
                               .arg(max ? QString::number(*max) : QStringLiteral("oo"))
                               .arg(lo)
                               .arg(hi)};
}

bool inPiece(const GuardExpression &g, const ConstraintSet &set, qint64 v, const QVector<quint32> &piece)
{
    const std::optional<QVector<quint32>> branches = g.branches(valuesAt(g, set, v));
    return branches && GuardExpression::samePiece(*branches, piece);
}

// A guard that holds for every value scanned, which torch still reported as violated
// (GLM-MoE-DSA's `Min(2048, seq_len) <= seq_len`, from `topk = min(index_topk, T)`):
// torch decides a guard from the ranges of its parts, and cannot order Min(2048,
// seq_len) against seq_len over [2, oo]. Where every Max/Min takes the same argument it
// is one linear piece, which torch decides; the fix narrows the root to the piece that
// holds the recorded values (max=2048), when the guard holds throughout it.
std::optional<GuardFixes::Fix> onePieceRange(const GuardExpression &g, const ShapeExplanation &e, const ConstraintSet &set,
                                             const QString &root, const QVector<qint64> &recorded)
{
    const qint64 lo = *std::min_element(recorded.cbegin(), recorded.cend());
    const qint64 hi = *std::max_element(recorded.cbegin(), recorded.cend());
    const std::optional<QVector<quint32>> piece = g.branches(valuesAt(g, set, lo));
    if (!piece || piece->isEmpty())
        return std::nullopt;
    for (qint64 v : recorded) {
        if (!inPiece(g, set, v, *piece))
            return std::nullopt; // the recorded values lie in two pieces
    }
    const DimDecl &d = *set.dim(root);
    const auto [min, max] = runAround(d, g, lo, hi, [&](qint64 v) { return inPiece(g, set, v, *piece); });
    if (min == d.min && max == d.max)
        return std::nullopt;
    return rangeFix(root, min, max, lo, hi,
                    QStringLiteral("torch reported the guard %1 (%2) and no fix, though it holds for every %3 tried; "
                                   "torch decides it where each Max/Min in it takes one argument,")
                        .arg(e.expression, where(e), root));
}

// One root Dim: the range around the recorded values where the guard holds.
std::optional<GuardFixes::Fix> narrowedRange(const GuardExpression &g, const ShapeExplanation &e, const ConstraintSet &set,
                                             const QString &root, const Capture &capture)
{
    QVector<qint64> recorded;
    for (qint64 v : ExportPhases::valuesOfDim(capture, set, root)) {
        if (v >= 0)
            recorded << v;
    }
    if (recorded.isEmpty())
        return std::nullopt;
    for (qint64 v : std::as_const(recorded)) {
        if (holdsAt(g, set, v) != true)
            return std::nullopt; // a recorded call breaks it: no range of this Dim helps
    }
    const DimDecl &d = *set.dim(root);
    const qint64 lo = *std::min_element(recorded.cbegin(), recorded.cend());
    const qint64 hi = *std::max_element(recorded.cbegin(), recorded.cend());
    const auto [min, max] = runAround(d, g, lo, hi, [&](qint64 v) { return holdsAt(g, set, v) == true; });
    if (min == d.min && max == d.max)
        return onePieceRange(g, e, set, root, recorded);
    return rangeFix(root, min, max, lo, hi,
                    QStringLiteral("torch stated the guard %1 (%2) and no fix; it holds").arg(e.expression, where(e)));
}

// Two root Dims: the relation every call has, when the guard holds under it.
std::optional<GuardFixes::Fix> recordedRelation(const GuardExpression &g, const ShapeExplanation &e, const ConstraintSet &set,
                                                const QStringList &roots, const Capture &capture)
{
    // The larger Dim derived from the smaller first (total_len = past_len + 1, as torch
    // writes it for Llama), then the other way round.
    for (int i = 0; i < 4; ++i) {
        const QString dim = roots.at(i % 2), other = roots.at(1 - i % 2);
        const std::optional<DimDecl> relation = ExportPhases::derivedRelation(capture, set, dim);
        if (!relation || relation->root != other || (i < 2 && relation->b < 0))
            continue;
        ConstraintSet related = set;
        if (!related.makeDerived(dim, other, relation->a, relation->b).isEmpty())
            continue;
        const qint64 from = std::max<qint64>(set.dim(other)->min.value_or(0), 0);
        const qint64 to = set.dim(other)->max ? std::min(*set.dim(other)->max, scanLimit(g, from)) : scanLimit(g, from);
        bool holds = true;
        for (qint64 v = from; v <= to && holds; ++v)
            holds = holdsAt(g, related, v) == true;
        if (!holds)
            continue;
        return GuardFixes::Fix{QStringLiteral("%1 = %2").arg(dim, relation->relationText()),
                               QStringLiteral("torch stated the guard %1 (%2) and no fix; every call of this phase has "
                                              "%3 = %4, under which it holds for %5 in [%6, %7]")
                                   .arg(e.expression, where(e), dim, relation->relationText(), other)
                                   .arg(from)
                                   .arg(to)};
    }
    return std::nullopt;
}

} // namespace

QVector<GuardFixes::Fix> GuardFixes::derive(const WorkerFailure &failure, const Capture &capture, const ConstraintSet &set)
{
    QVector<Fix> fixes;
    if (failure.hasFixes())
        return fixes;
    ConstraintSet working = set; // each fix applied, so the next guard sees it
    QSet<QString> seen;
    for (const ShapeExplanation &e : failure.explanations) {
        if (e.kind != QLatin1String("guard") && e.kind != QLatin1String("range_narrowed"))
            continue;
        const bool listed = failure.names.isEmpty()
            || std::any_of(e.dims.cbegin(), e.dims.cend(), [&](const QString &d) { return failure.names.contains(d); });
        if (!listed || seen.contains(e.expression))
            continue;
        seen.insert(e.expression);
        const GuardExpression g = GuardExpression::parse(e.expression);
        const QStringList roots = g.isValid() ? rootsOf(g, working) : QStringList();
        std::optional<Fix> fix;
        if (roots.size() == 1)
            fix = narrowedRange(g, e, working, roots.first(), capture);
        else if (roots.size() == 2)
            fix = recordedRelation(g, e, working, roots, capture);
        if (!fix || !SuggestedFixApplier::applyFix(&working, ExportErrorParser::parseFix(fix->line)).isEmpty())
            continue;
        fixes << *fix;
    }
    return fixes;
}

} // namespace dimscope
