// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/exportphases.h"

#include "export/substitutedinputs.h"
#include "inference/captureanalysis.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QMap>
#include <QSet>
#include <QStringList>

#include <algorithm>

namespace dimscope {

namespace {

// path -> shape of every tensor leaf of one call
QMap<QString, QVector<qint64>> tensorShapes(const CapturedCall &call)
{
    QMap<QString, QVector<qint64>> out;
    for (const Leaf &l : call.inputs.leaves) {
        if (l.isTensor())
            out.insert(l.path, l.shape);
    }
    return out;
}

QString structureKey(const QMap<QString, QVector<qint64>> &shapes)
{
    QStringList parts;
    for (auto it = shapes.begin(); it != shapes.end(); ++it)
        parts << it.key() + QLatin1Char('/') + QString::number(it.value().size());
    return parts.join(QLatin1Char('|'));
}

int sizeClass(qint64 v) { return v <= 0 ? 0 : (v == 1 ? 1 : 2); }

using LeafDim = QPair<QString, int>;

// (path, dim) -> the sizes in each of `calls` (-1 where absent)
QMap<QPair<QString, int>, QVector<qint64>> dimValues(const Capture &capture, const QVector<int> &calls)
{
    QMap<QPair<QString, int>, QVector<qint64>> out;
    for (int i = 0; i < calls.size(); ++i) {
        const auto shapes = tensorShapes(capture.calls.at(calls[i]));
        for (auto it = shapes.begin(); it != shapes.end(); ++it) {
            for (int d = 0; d < it.value().size(); ++d) {
                auto &values = out[{it.key(), d}];
                values.resize(calls.size(), -1);
                values[i] = it.value()[d];
            }
        }
    }
    return out;
}

bool varies(const QVector<qint64> &values)
{
    qint64 first = -1;
    for (qint64 v : values) {
        if (v < 0)
            continue;
        if (first < 0)
            first = v;
        else if (v != first)
            return true;
    }
    return false;
}

using CallShapes = QVector<QHash<QString, QVector<qint64>>>; // per call: path -> shape
using DimUses = QVector<QPair<QString, int>>;                   // (leaf path, dim)

CallShapes shapesByCall(const Capture &capture)
{
    CallShapes out;
    for (const CapturedCall &call : capture.calls) {
        QHash<QString, QVector<qint64>> shapes;
        for (const Leaf &l : call.inputs.leaves) {
            if (l.isTensor())
                shapes.insert(l.path, l.shape);
        }
        out << shapes;
    }
    return out;
}

// Dim name -> the leaf dims assigned to it.
QHash<QString, DimUses> usesByDim(const ConstraintSet &set)
{
    QHash<QString, DimUses> out;
    for (const LeafConstraint &leaf : set.leaves()) {
        for (int d = 0; d < leaf.dims.size(); ++d) {
            if (leaf.dims.at(d).isNamed())
                out[leaf.dims.at(d).dim] << qMakePair(leaf.path, d);
        }
    }
    return out;
}

// The size of the leaf dims `uses` in each call (-1 where the call has none of them,
// -2 where they disagree).
QVector<qint64> valuesPerCall(const CallShapes &shapes, const DimUses &uses)
{
    QVector<qint64> out(shapes.size(), -1);
    for (int c = 0; c < shapes.size(); ++c) {
        for (const auto &use : uses) {
            const auto it = shapes.at(c).constFind(use.first);
            if (it == shapes.at(c).constEnd() || use.second >= it->size())
                continue;
            qint64 &v = out[c];
            v = v == -1 || v == it->at(use.second) ? it->at(use.second) : -2;
        }
    }
    return out;
}

// a and b with x = a * r + b at every point, a >= 1, from at least two distinct r.
std::optional<QPair<qint64, qint64>> linearFit(const QVector<QPair<qint64, qint64>> &points)
{
    QSet<qint64> rs;
    for (const auto &p : points)
        rs.insert(p.second);
    if (rs.size() < 2)
        return std::nullopt;
    const auto lo = *std::min_element(points.begin(), points.end(),
                                      [](const auto &x, const auto &y) { return x.second < y.second; });
    const auto hi = *std::max_element(points.begin(), points.end(),
                                      [](const auto &x, const auto &y) { return x.second < y.second; });
    const qint64 dx = hi.first - lo.first, dr = hi.second - lo.second;
    if (dx <= 0 || dx % dr != 0)
        return std::nullopt;
    const qint64 a = dx / dr, b = lo.first - a * lo.second;
    for (const auto &p : points) {
        if (p.first != a * p.second + b)
            return std::nullopt;
    }
    return qMakePair(a, b);
}

// The user's constraints for one phase: a Dim (or a Dim.DYNAMIC dim) that holds 0 or 1
// in every call of the phase becomes static (torch would specialize it, and the phase
// is defined by it); everything else stays as the user set it. Returns what changed.
QStringList narrowToPhase(const Capture &phase, ConstraintSet *set)
{
    QStringList notes;
    const auto constantSmall = [](const QVector<qint64> &values) {
        qint64 v = -1;
        for (qint64 x : values) {
            if (x == -2 || (x >= 0 && v >= 0 && x != v))
                return qint64(-1);
            v = x >= 0 ? x : v;
        }
        return v >= 0 && v <= 1 ? v : qint64(-1);
    };
    const CallShapes shapes = shapesByCall(phase);
    const QHash<QString, DimUses> uses = usesByDim(*set);
    for (const DimDecl &dim : QVector<DimDecl>(set->dims())) {
        if (dim.isDerived() || !set->dim(dim.name))
            continue;
        const qint64 v = constantSmall(valuesPerCall(shapes, uses.value(dim.name)));
        if (v >= 0 && set->specializeDim(dim.name).isEmpty())
            notes << QStringLiteral("%1 static (%2 in every call)").arg(dim.name).arg(v);
    }
    for (const LeafConstraint &leaf : QVector<LeafConstraint>(set->leaves())) {
        for (int d = 0; d < leaf.dims.size(); ++d) {
            if (leaf.dims.at(d).kind != DimAssignment::Kind::Dynamic)
                continue;
            const qint64 v = constantSmall(valuesPerCall(shapes, {qMakePair(leaf.path, d)}));
            if (v >= 0 && set->makeStatic(leaf.path, d).isEmpty())
                notes << QStringLiteral("%1 dim %2 static (%3 in every call)").arg(leaf.path).arg(d).arg(v);
        }
    }
    return notes;
}

// The leaf dims of every root Dim that `set` declares from 0 or 1 (inference's batch
// Dim, issue 27 item 3; a user's min=1): torch traces such a Dim as >= 2 and accepts the
// declared min, and verification replays the calls at 1 (and a batch-1 slice), so a call
// at 1 shares its program with the calls at >= 2 instead of forming a phase where every
// other Dim loses the values the rest of its calls had (issue 24 item 2: a prefill at
// batch 1 and one at batch 3 are one program with a dynamic prompt length). 0 stays a
// phase of its own: an empty tensor takes other paths.
QSet<LeafDim> leafDimsServedFromOne(const ConstraintSet &set)
{
    QSet<LeafDim> out;
    const QHash<QString, DimUses> uses = usesByDim(set);
    for (const DimDecl &dim : set.dims()) {
        if (!dim.isDerived() && dim.min && *dim.min <= 1) {
            for (const auto &use : uses.value(dim.name))
                out.insert(use);
        }
    }
    return out;
}

// A phase inferred from its own calls sees a size that is the same in each of them as a
// constant; a prefill recorded once would then serve only that prompt length, although
// the prompt length varies over the capture (issue 24 item 2: a program narrower than
// the capture). The leaf dims that are one value c >= 2 in every call of the phase and
// vary over the capture become one Dim again, from 2, when one of them takes another
// value >= 2 elsewhere (the mask length 8 in the prefill, 9..11 in decode): a variation
// only across 0 or 1 (a state-space cache empty in the prefill, its kernel size after)
// is a phase boundary, not a Dim. The Dim takes the proposal's name for one of the
// leaf dims where it has one. Returns what was kept, for the log.
QStringList keepWhatVariesOverTheCapture(const Capture &capture, const QVector<int> &group,
                                         const ConstraintSet &proposal, ConstraintSet *set)
{
    QVector<int> all;
    for (int c = 0; c < capture.calls.size(); ++c)
        all << c;
    const auto overall = dimValues(capture, all);
    const QSet<int> inPhase(group.begin(), group.end());
    QMap<qint64, QVector<LeafDim>> byValue;   // c -> leaf dims constant at c in the phase
    QSet<qint64> anchored;                     // c whose group has another value >= 2 elsewhere
    for (auto it = overall.begin(); it != overall.end(); ++it) {
        if (!varies(it.value()) || set->assignment(it.key().first, it.key().second).kind != DimAssignment::Kind::Static)
            continue;
        qint64 c = -1;
        bool constant = true;
        for (int call : group) {
            const qint64 v = it.value().value(call, -1);
            constant = constant && v >= 2 && (c < 0 || v == c);
            c = v;
        }
        if (!constant)
            continue;
        byValue[c] << it.key();
        for (int call = 0; call < it.value().size(); ++call) {
            if (!inPhase.contains(call) && it.value().at(call) >= 2 && it.value().at(call) != c)
                anchored.insert(c);
        }
    }
    QStringList notes;
    for (auto it = byValue.begin(); it != byValue.end(); ++it) {
        if (!anchored.contains(it.key()))
            continue;
        QString name;
        for (const LeafDim &ld : it.value()) {
            const DimAssignment a = proposal.assignment(ld.first, ld.second);
            if (name.isEmpty() && a.isNamed() && !set->dim(a.dim))
                name = a.dim;
        }
        for (int n = 2; name.isEmpty() || set->dim(name); ++n)
            name = QStringLiteral("len%1").arg(n == 2 ? QString() : QString::number(n));
        if (!set->addRootDim(name, 2, std::nullopt).isEmpty())
            continue;
        QStringList members;
        for (const LeafDim &ld : it.value()) {
            if (set->assign(ld.first, ld.second, DimAssignment::named(name)).isEmpty())
                members << QStringLiteral("%1 dim %2").arg(ld.first).arg(ld.second);
        }
        if (members.isEmpty()) {
            set->removeDim(name);
            continue;
        }
        notes << QStringLiteral("%1 kept a Dim from 2 (%2: %3 in each of its calls, other sizes elsewhere in the capture)")
                     .arg(name, members.join(QStringLiteral(", ")))
                     .arg(it.key());
    }
    return notes;
}

// A size that another phase has at 0 grows from empty: a cache's length is 0 in the
// prefill, 1 in the decode step after a 1-token prompt, then 2, 3, ... A phase whose
// calls all have it >= 2 would get torch's default minimum of 2 and reject that step
// (issue 27 item 1: `attention_mask.size()[1] >= 3` on a decode program). Such a root
// Dim of the phase is declared from 1: torch traces it as >= 2 all the same, and the
// step at 1 is a call of this phase, not of the one at 0. Returns what was widened.
QStringList declareGrowingDimsFromOne(const Capture &capture, const QVector<int> &group, ConstraintSet *set)
{
    QVector<int> others;
    const QSet<int> inPhase(group.begin(), group.end());
    for (int c = 0; c < capture.calls.size(); ++c) {
        if (!inPhase.contains(c))
            others << c;
    }
    const Capture phase = ExportPhases::subset(capture, group);
    const Capture rest = ExportPhases::subset(capture, others);
    QStringList notes;
    for (const DimDecl &dim : QVector<DimDecl>(set->dims())) {
        if (dim.isDerived() || (dim.min && *dim.min < 2))
            continue;
        const QVector<qint64> here = ExportPhases::valuesOfDim(phase, *set, dim.name);
        const QVector<qint64> there = ExportPhases::valuesOfDim(rest, *set, dim.name);
        const bool atLeastTwo = std::all_of(here.begin(), here.end(), [](qint64 v) { return v == -1 || v >= 2; });
        const bool emptyElsewhere = std::any_of(there.begin(), there.end(), [](qint64 v) { return v == 0; });
        if (atLeastTwo && emptyElsewhere && set->setRange(dim.name, 1, dim.max).isEmpty())
            notes << QStringLiteral("%1 from 1 (0 in calls of another phase: it grows from empty)").arg(dim.name);
    }
    return notes;
}

// Every call has one structure and one of them has every varying dim >= 2 (the demo's
// second turn: 3 new tokens over a cache of 8): a program traced from it may serve the
// calls on the 0/1 boundary too (torch checks a lower bound at run time only above 2),
// so one program for every call is tried first, and phases only for what it rejects.
bool hasGeneralCall(const Capture &capture, const QVector<int> &calls)
{
    QSet<QString> structures;
    for (int c : calls)
        structures.insert(structureKey(tensorShapes(capture.calls.at(c))));
    if (structures.size() != 1)
        return false;
    const auto values = dimValues(capture, calls);
    for (int i = 0; i < calls.size(); ++i) {
        bool general = true;
        for (auto it = values.begin(); it != values.end() && general; ++it)
            general = !varies(it.value()) || it.value().at(i) >= 2;
        if (general)
            return true;
    }
    return false;
}

} // namespace

QVector<qint64> ExportPhases::valuesOfDim(const Capture &capture, const ConstraintSet &set, const QString &dim)
{
    return valuesPerCall(shapesByCall(capture), usesByDim(set).value(dim));
}

std::optional<DimDecl> ExportPhases::derivedRelation(const Capture &capture, const ConstraintSet &set,
                                                     const QString &dim)
{
    const DimDecl *decl = set.dim(dim);
    if (!decl || decl->isDerived())
        return std::nullopt;
    const CallShapes shapes = shapesByCall(capture);
    const QHash<QString, DimUses> uses = usesByDim(set);
    const QVector<qint64> xs = valuesPerCall(shapes, uses.value(dim));
    for (const DimDecl &root : set.dims()) {
        if (root.isDerived() || root.name == dim)
            continue;
        const QVector<qint64> rs = valuesPerCall(shapes, uses.value(root.name));
        QVector<QPair<qint64, qint64>> points;
        bool usable = true;
        for (int c = 0; c < xs.size() && usable; ++c) {
            if (xs[c] == -1)
                continue;
            usable = xs[c] >= 0 && rs[c] >= 0;
            points << qMakePair(xs[c], rs[c]);
        }
        if (!usable || points.isEmpty())
            continue;
        if (const auto fit = linearFit(points))
            return DimDecl::makeDerived(dim, root.name, fit->first, fit->second);
    }
    return std::nullopt;
}

QVector<ExportPhases::PlannedPhase> ExportPhases::plan(const Capture &capture, const ConstraintSet &given,
                                         const ConstraintSet &proposal)
{
    QVector<int> all;
    for (int c = 0; c < capture.calls.size(); ++c)
        all << c;
    QVector<QVector<int>> groups = split(capture, all, &given);
    if (groups.size() <= 1 || hasGeneralCall(capture, all))
        return {PlannedPhase{{}, QStringLiteral("every call"), given, QStringLiteral("the constraints given"), {}}};
    std::stable_sort(groups.begin(), groups.end(),
                     [](const QVector<int> &x, const QVector<int> &y) { return x.size() > y.size(); });
    const bool edited = given != proposal;
    const InferenceOptions options = InferenceOptions::defaultsFor(capture);
    QVector<PlannedPhase> phases;
    for (const QVector<int> &group : std::as_const(groups)) {
        PlannedPhase phase{group, describe(capture, group), given, {}, {}};
        // Its calls as the phase exports them: without the inputs none of them passed.
        const Capture calls = SubstitutedInputs::without(subset(capture, group),
                                                         SubstitutedInputs::commonTo(capture, group));
        if (edited) {
            const QStringList narrowed = narrowToPhase(calls, &phase.constraints);
            phase.source = narrowed.isEmpty()
                ? QStringLiteral("the user's constraints")
                : QStringLiteral("the user's constraints, with %1").arg(narrowed.join(QStringLiteral(", ")));
        } else {
            const InferenceResult inferred = CaptureAnalysis::infer(calls, options);
            phase.constraints = inferred.constraints;
            const QStringList kept = keepWhatVariesOverTheCapture(capture, group, proposal, &phase.constraints)
                + declareGrowingDimsFromOne(capture, group, &phase.constraints);
            phase.source = kept.isEmpty()
                ? QStringLiteral("inferred from its calls")
                : QStringLiteral("inferred from its calls; %1").arg(kept.join(QStringLiteral("; ")));
            if (inferred.hasErrors())
                phase.error = QStringLiteral("the constraints inferred from calls %1 are unusable: %2")
                                  .arg(callsText(group), inferred.texts(InferenceMessage::Severity::Error)
                                                             .join(QStringLiteral("; ")));
        }
        phases << phase;
    }
    return phases;
}

Capture ExportPhases::subset(const Capture &capture, const QVector<int> &calls)
{
    Capture sub = capture;
    sub.calls.clear();
    for (int c : calls) {
        CapturedCall call = capture.calls.at(c);
        call.index = int(sub.calls.size());
        sub.calls << call;
    }
    return sub;
}

QVector<QVector<int>> ExportPhases::split(const Capture &capture, const QVector<int> &calls,
                                          const ConstraintSet *declared)
{
    const auto values = dimValues(capture, calls);
    const QSet<LeafDim> fromOne = declared ? leafDimsServedFromOne(*declared) : QSet<LeafDim>();
    QVector<QPair<QString, int>> varying;
    for (auto it = values.begin(); it != values.end(); ++it) {
        if (varies(it.value()))
            varying << it.key();
    }
    QVector<QVector<int>> groups;
    QHash<QString, int> byKey;
    for (int i = 0; i < calls.size(); ++i) {
        const auto shapes = tensorShapes(capture.calls.at(calls[i]));
        // Calls whose input was only substituted (value_if_missing) are a structure of
        // their own: their program is exported without it (SubstitutedInputs).
        QString key = structureKey(shapes) + QLatin1String("|filled:")
            + capture.calls.at(calls[i]).filled.join(QLatin1Char(','));
        for (const auto &pd : varying) {
            const qint64 v = values.value(pd).value(i, -1);
            const int size = v < 0 ? -1 : sizeClass(v);
            key += QLatin1Char(';') + (size < 0 ? QStringLiteral("-") : QString::number(size == 1 && fromOne.contains(pd) ? 2 : size));
        }
        auto it = byKey.find(key);
        if (it == byKey.end()) {
            it = byKey.insert(key, int(groups.size()));
            groups.append(QVector<int>());
        }
        groups[*it] << calls[i];
    }
    return groups;
}

QString ExportPhases::describe(const Capture &capture, const QVector<int> &calls, int limit)
{
    QVector<int> all;
    for (int c = 0; c < capture.calls.size(); ++c)
        all << c;
    const auto overall = dimValues(capture, all);
    const auto here = dimValues(capture, calls);
    // Inputs none of these calls passed (recorded from value_if_missing): left out of
    // their program, so their sizes do not set the phase apart.
    const QStringList substituted = SubstitutedInputs::commonTo(capture, calls);
    QStringList parts;
    QSet<QString> seenValues; // one mention per "value pattern" keeps it short
    for (auto it = here.begin(); it != here.end() && parts.size() < limit; ++it) {
        if (varies(it.value()) || !varies(overall.value(it.key()))
            || SubstitutedInputs::isUnder(it.key().first, substituted))
            continue;
        qint64 v = -1;
        for (qint64 x : it.value())
            v = x >= 0 ? x : v;
        const QString pattern = QString::number(it.key().second) + QLatin1Char('=') + QString::number(v);
        if (seenValues.contains(pattern))
            continue;
        seenValues.insert(pattern);
        parts << QStringLiteral("%1 dim %2 = %3").arg(it.key().first).arg(it.key().second).arg(v);
    }
    // Inputs only these calls pass (a vision-language model's images).
    QSet<QString> inOthers, inThese;
    for (int c = 0; c < capture.calls.size(); ++c) {
        for (const Leaf &l : capture.calls.at(c).inputs.leaves)
            (calls.contains(c) ? inThese : inOthers).insert(l.path);
    }
    QStringList only;
    for (const QString &p : std::as_const(inThese)) {
        if (!inOthers.contains(p))
            only << p;
    }
    only.sort();
    if (!only.isEmpty())
        parts.prepend(QStringLiteral("with %1").arg(only.mid(0, limit).join(QStringLiteral(", "))));
    if (!substituted.isEmpty())
        parts << QStringLiteral("without %1").arg(SubstitutedInputs::namesText(substituted));
    return parts.isEmpty() ? QStringLiteral("calls %1").arg(callsText(calls)) : parts.join(QStringLiteral(", "));
}

QString ExportPhases::callsText(const QVector<int> &calls)
{
    QStringList parts;
    for (int i = 0; i < calls.size();) {
        int j = i;
        while (j + 1 < calls.size() && calls[j + 1] == calls[j] + 1)
            ++j;
        parts << (j > i ? QStringLiteral("%1-%2").arg(calls[i]).arg(calls[j]) : QString::number(calls[i]));
        i = j + 1;
    }
    return parts.join(QStringLiteral(", "));
}

QString ExportPhases::outputPath(const QString &output, int phase)
{
    if (phase <= 1)
        return output;
    const QFileInfo fi(output);
    QString base = fi.fileName();
    if (base.endsWith(QLatin1String(".pt2")))
        base.chop(4);
    return fi.dir().filePath(QStringLiteral("%1.phase%2.pt2").arg(base).arg(phase));
}

} // namespace dimscope
