#include "shapes/shapeinference.h"

#include "capture/capture.h"
#include "shapes/dimnaming.h"
#include "shapes/examplecall.h"

#include <QHash>
#include <QSet>

#include <algorithm>
#include <limits>

namespace dimscope {

InferenceOptions InferenceOptions::defaultsFor(const Capture &capture)
{
    InferenceOptions o;
    o.batchForAll = !capture.transformersVersion.isEmpty() && capture.modelClass.startsWith(QLatin1String("transformers."));
    return o;
}

namespace {

using Severity = InferenceMessage::Severity;

// A set of leaf dimensions that become one Dim.
struct Group {
    QVector<int> rows;
    QVector<qint64> seq; // merged values per call, -1 where no member is present
    bool varying = false;
    qint64 minValue = std::numeric_limits<qint64>::max();
    double meanValue = 0;
    QString name;
    int root = -1; // derived: index of the root group
    qint64 a = 1, b = 0;
    qint64 rangeMin = 0; // root groups
};

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

// Equal wherever both are known, and the overlap shows the values changing.
bool sameSymbol(const QVector<qint64> &seq, const qint64 *row)
{
    qint64 first = -1;
    bool varies = false;
    for (int c = 0; c < seq.size(); ++c) {
        if (seq[c] < 0 || row[c] < 0)
            continue;
        if (seq[c] != row[c])
            return false;
        if (first < 0)
            first = row[c];
        else if (row[c] != first)
            varies = true;
    }
    return varies;
}

QString rowLabel(const ShapeTable &t, int row)
{
    return QStringLiteral("%1 dim %2").arg(t.leaf(t.leafOfRow(row)).path).arg(t.dimOfRow(row));
}

QString membersLabel(const ShapeTable &t, const QVector<int> &rows)
{
    QString s = rowLabel(t, rows.first());
    if (rows.size() > 1)
        s += QStringLiteral(", +%1 more").arg(rows.size() - 1);
    return s;
}

} // namespace

InferenceResult ShapeInference::infer(const Capture &capture, const InferenceOptions &options)
{
    return infer(ShapeTable(capture), options);
}

InferenceResult ShapeInference::infer(const ShapeTable &table, const InferenceOptions &options)
{
    InferenceResult result;
    result.table = table;
    const int calls = table.callCount();
    auto message = [&](Severity s, const QString &text, const QString &dim = {}, const QStringList &leaves = {},
                       const QVector<int> &cs = {}) { result.messages.append({s, text, dim, leaves, cs}); };

    for (const ShapeIssue &issue : table.issues())
        message(Severity::Error, issue.message, {}, {issue.path}, issue.calls);
    if (calls == 0) {
        message(Severity::Note, QStringLiteral("the capture has no calls: nothing to infer"));
        return result;
    }
    if (calls == 1 && options.mode == InferenceOptions::Mode::Observed && !options.batchForAll && options.batchFor.isEmpty())
        message(Severity::Warning,
                QStringLiteral("only one call was captured: every dimension is static. Capture calls with different "
                               "sizes, or use all-dynamic / batch mode"));

    // ---- which dimensions are dynamic ----
    const int rows = table.dimRowCount();
    QVector<quint8> dynamic(rows, 0), varying(rows, 0);
    QVector<int> order;
    for (int r = 0; r < rows; ++r) {
        const auto &leaf = table.leaf(table.leafOfRow(r));
        if (!leaf.consistent || leaf.presentCalls == 0)
            continue;
        const qint64 *v = table.row(r);
        qint64 first = -1;
        for (int c = 0; c < calls; ++c) {
            if (v[c] < 0)
                continue;
            if (first < 0)
                first = v[c];
            else if (v[c] != first)
                varying[r] = 1;
        }
        const bool forced = table.dimOfRow(r) == 0
            && (options.batchForAll || options.batchFor.contains(leaf.arg) || options.batchFor.contains(leaf.path));
        dynamic[r] = varying[r] || forced || options.mode == InferenceOptions::Mode::AllDynamic;
        if (dynamic[r])
            order << r;
    }
    // Single observations: per input, the leaves only one call has.
    if (calls > 1) {
        QHash<QString, QStringList> single;
        QHash<QString, int> singleCall;
        for (int li = 0; li < table.leafCount(); ++li) {
            const auto &leaf = table.leaf(li);
            if (leaf.presentCalls != 1 || !leaf.consistent)
                continue;
            single[leaf.arg] << leaf.path;
            for (int c = 0; c < calls; ++c) {
                if (table.present(li, c))
                    singleCall[leaf.arg] = c;
            }
        }
        for (const QString &arg : table.args()) {
            if (!single.contains(arg))
                continue;
            const QStringList &leaves = single[arg];
            message(Severity::Warning,
                    QStringLiteral("%1 is seen in a single call (call %2): its dimensions cannot be judged and are "
                                   "proposed static. Capture more calls that pass '%3', or mark its dynamic "
                                   "dimensions by hand")
                        .arg(leaves.size() == 1 ? QStringLiteral("'%1'").arg(leaves.first())
                                                : QStringLiteral("'%1' (%2 leaves)").arg(arg).arg(leaves.size()))
                        .arg(singleCall[arg])
                        .arg(arg),
                    {}, leaves, {singleCall[arg]});
        }
    }

    // ---- grouping: one Dim per value sequence ----
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
        return table.leaf(table.leafOfRow(x)).presentCalls > table.leaf(table.leafOfRow(y)).presentCalls;
    });
    QVector<Group> groups;
    QHash<QByteArray, int> exact;      // a row's exact values -> group (the common case)
    QHash<qint64, int> forcedConstant; // forced batch dims that never change, by value
    for (int r : order) {
        const qint64 *v = table.row(r);
        const QByteArray key(reinterpret_cast<const char *>(v), int(sizeof(qint64)) * calls);
        int g = -1;
        if (varying[r]) {
            g = exact.value(key, -1);
            for (int i = 0; g < 0 && i < groups.size(); ++i) {
                if (groups[i].varying && sameSymbol(groups[i].seq, v))
                    g = i;
            }
        } else if (table.dimOfRow(r) == 0 && (options.batchForAll || !options.batchFor.isEmpty())) {
            qint64 value = -1;
            for (int c = 0; c < calls && value < 0; ++c)
                value = v[c];
            g = forcedConstant.value(value, -1);
            if (g < 0)
                forcedConstant.insert(value, groups.size());
        }
        if (g < 0) {
            g = groups.size();
            Group ng;
            ng.seq = QVector<qint64>(v, v + calls);
            ng.varying = varying[r];
            groups << ng;
        }
        exact.insert(key, g);
        Group &grp = groups[g];
        grp.rows << r;
        for (int c = 0; c < calls; ++c) {
            if (v[c] >= 0) {
                grp.seq[c] = v[c];
                grp.minValue = std::min(grp.minValue, v[c]);
            }
        }
    }
    for (Group &g : groups) {
        std::sort(g.rows.begin(), g.rows.end());
        int known = 0;
        for (qint64 v : g.seq) {
            if (v >= 0) {
                g.meanValue += double(v);
                ++known;
            }
        }
        g.meanValue /= std::max(known, 1);
    }
    std::sort(groups.begin(), groups.end(), [](const Group &x, const Group &y) { return x.rows.first() < y.rows.first(); });

    // ---- names: conventional roles first, then <leaf>_dim<i> ----
    QSet<QString> taken;
    for (Group &g : groups) {
        DimNaming::Role best;
        for (int r : g.rows) {
            const auto &leaf = table.leaf(table.leafOfRow(r));
            const DimNaming::Role role = DimNaming::roleOf(leaf.path, leaf.arg, table.dimOfRow(r), leaf.rank);
            if (role.priority > best.priority)
                best = role;
        }
        const QString wanted = !best.name.isEmpty() && !taken.contains(best.name)
            ? best.name
            : DimNaming::fallbackName(table.leaf(table.leafOfRow(g.rows.first())).path, table.dimOfRow(g.rows.first()));
        g.name = DimNaming::claimUnique(wanted, &taken);
    }

    // ---- derived relations: smaller groups become roots ----
    QVector<int> byValue;
    for (int i = 0; i < groups.size(); ++i) {
        if (groups[i].varying)
            byValue << i;
    }
    // Roots are tried smallest first, so that A*root + B has B >= 0 whenever A is 1.
    std::stable_sort(byValue.begin(), byValue.end(), [&](int x, int y) {
        return groups[x].meanValue != groups[y].meanValue ? groups[x].meanValue < groups[y].meanValue
                                                          : groups[x].minValue < groups[y].minValue;
    });
    QVector<int> roots;
    for (int gi : byValue) {
        int bestRoot = -1;
        Relation best;
        for (int ri : roots) {
            const Relation rel = relate(groups[ri].seq, groups[gi].seq);
            if (!rel.fits)
                continue;
            if (rel.distinct < 3) {
                message(Severity::Note,
                        QStringLiteral("'%1' = %2 in the captured calls, but only %3 distinct values support it: kept "
                                       "as a separate Dim (make it derived by hand if the model requires it)")
                            .arg(groups[gi].name, DimDecl::makeDerived(groups[gi].name, groups[ri].name, rel.a, rel.b).relationText())
                            .arg(rel.distinct),
                        groups[gi].name, {}, rel.calls);
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
        Group &g = groups[gi];
        g.root = bestRoot;
        g.a = best.a;
        g.b = best.b;
        message(Severity::Note,
                QStringLiteral("'%1' = %2 in every call that has both (calls %3): proposed as a derived Dim")
                    .arg(g.name, DimDecl::makeDerived(g.name, groups[bestRoot].name, g.a, g.b).relationText(),
                         describeCalls(best.calls)),
                g.name, {}, best.calls);
    }

    // ---- sums of two symbols: reported, torch.export cannot express them ----
    if (byValue.size() <= 64) {
        for (int zi : byValue) {
            if (groups[zi].root >= 0)
                continue;
            bool reported = false;
            for (int i = 0; i < byValue.size() && !reported; ++i) {
                for (int j = i; j < byValue.size() && !reported; ++j) {
                    const int xi = std::min(byValue[i], byValue[j]), yi = std::max(byValue[i], byValue[j]);
                    if (xi == zi || yi == zi || xi == yi)
                        continue;
                    const auto &x = groups[xi].seq, &y = groups[yi].seq, &z = groups[zi].seq;
                    QVector<int> cs;
                    QSet<qint64> zs;
                    bool fits = true;
                    for (int c = 0; c < calls && fits; ++c) {
                        if (x[c] < 0 || y[c] < 0 || z[c] < 0)
                            continue;
                        fits = z[c] == x[c] + y[c];
                        cs << c;
                        zs.insert(z[c]);
                    }
                    if (!fits || cs.size() < 3 || zs.size() < 2)
                        continue;
                    reported = true;
                    message(Severity::Note,
                            QStringLiteral("'%1' = '%2' + '%3' in every call that has all three (calls %4): torch.export "
                                           "cannot express a sum of two Dims, so they stay separate Dims")
                                .arg(groups[zi].name, groups[xi].name, groups[yi].name, describeCalls(cs)),
                            groups[zi].name, {}, cs);
                }
            }
        }
    }

    // ---- ranges: min from the observations and the 0/1 rule, max unbounded ----
    for (Group &g : groups)
        g.rangeMin = std::min<qint64>(2, g.minValue);
    for (Group &g : groups) {
        if (g.root < 0)
            continue;
        Group &root = groups[g.root];
        if (g.a * root.rangeMin + g.b < 0) {
            const qint64 need = (-g.b + g.a - 1) / g.a;
            message(Severity::Warning,
                    QStringLiteral("derived Dim '%1' = %2 would go negative for %3 < %4 (torch.export rejects that): "
                                   "the min of '%3' is raised to %4")
                        .arg(g.name, DimDecl::makeDerived(g.name, root.name, g.a, g.b).relationText(), root.name)
                        .arg(need),
                    g.name);
            root.rangeMin = std::max(root.rangeMin, need);
        }
    }

    // ---- the constraint set ----
    // A Dim whose size in the example call is 0 or 1 cannot stay symbolic in that export
    // (torch specializes it and a named Dim or Dim.DYNAMIC would make the export fail):
    // its dims become Dim.AUTO, with a warning saying what to capture instead.
    QVector<int> autoGroups;
    QVector<QString> rowDim(rows);
    auto buildSet = [&] {
        ConstraintSet set;
        rowDim.fill(QString());
        for (int i = 0; i < groups.size(); ++i) {
            const Group &g = groups[i];
            if (autoGroups.contains(i))
                continue;
            if (g.root < 0 || autoGroups.contains(g.root))
                set.addRootDim(g.name, g.rangeMin, std::nullopt);
            for (int r : g.rows)
                rowDim[r] = g.name;
        }
        for (int i = 0; i < groups.size(); ++i) {
            const Group &g = groups[i];
            if (!autoGroups.contains(i) && g.root >= 0 && !autoGroups.contains(g.root))
                set.addDerivedDim(g.name, groups[g.root].name, g.a, g.b);
        }
        int pos = 0;
        for (const Group &g : groups) {
            const int at = set.indexOfDim(g.name);
            if (at >= 0)
                set.moveDim(at, pos++);
        }
        for (int li = 0; li < table.leafCount(); ++li) {
            const auto &leaf = table.leaf(li);
            if (!leaf.consistent)
                continue;
            QVector<DimAssignment> dims;
            for (int d = 0; d < leaf.rank; ++d) {
                const int r = leaf.firstDim + d;
                const QString &name = rowDim[r];
                const bool isAuto = std::any_of(autoGroups.begin(), autoGroups.end(),
                                                [&](int gi) { return groups[gi].rows.contains(r); });
                dims << (isAuto ? DimAssignment::makeAuto()
                                : name.isEmpty() ? DimAssignment::makeStatic() : DimAssignment::named(name));
            }
            set.setLeaf(leaf.path, dims);
        }
        return set;
    };
    result.constraints = buildSet();
    result.exampleCall = chooseExampleCall(table, result.constraints);
    for (int i = 0; i < groups.size(); ++i) {
        const qint64 v = groups[i].seq.value(result.exampleCall, -1);
        if (v == 0 || v == 1)
            autoGroups << i;
    }
    if (!autoGroups.isEmpty())
        result.constraints = buildSet();
    for (int gi : autoGroups) {
        for (int r : groups[gi].rows)
            rowDim[r] = QStringLiteral("auto");
    }

    // ---- 0/1 warnings ----
    for (int gi = 0; gi < groups.size(); ++gi) {
        const Group &g = groups[gi];
        QVector<int> small;
        QSet<qint64> smallValues;
        for (int c = 0; c < calls; ++c) {
            for (int r : g.rows) {
                const qint64 v = table.value(r, c);
                if (v == 0 || v == 1) {
                    small << c;
                    smallValues.insert(v);
                    break;
                }
            }
        }
        if (small.isEmpty())
            continue;
        QList<qint64> vs = smallValues.values();
        std::sort(vs.begin(), vs.end());
        QStringList vtext;
        for (qint64 v : vs)
            vtext << QString::number(v);
        QString advice = autoGroups.contains(gi)
            ? QStringLiteral("it is %1 in the example call %2 (no call has every dynamic size >= 2), so it is proposed "
                             "as Dim.AUTO and that export will specialize it. Capture a call where it is >= 2 next to "
                             "the other inputs to keep it dynamic")
                  .arg(g.seq[result.exampleCall])
                  .arg(result.exampleCall)
            : QStringLiteral("dimscope exports from call %1, where it is >= 2; check that the exported program accepts "
                             "the calls with %2 (replay them), or drop those sizes from the range")
                  .arg(result.exampleCall)
                  .arg(vtext.join(QStringLiteral(" or ")));
        QStringList leaves;
        for (int r : g.rows)
            leaves << table.leaf(table.leafOfRow(r)).path;
        message(Severity::Warning,
                QStringLiteral("Dim '%1' (%2) is %3 in call(s) %4: torch.export specializes sizes 0 and 1; %5")
                    .arg(g.name, membersLabel(table, g.rows), vtext.join(QStringLiteral(" or ")), describeCalls(small), advice),
                g.name, leaves, small);
    }

    // ---- observations ----
    result.observations.reserve(rows);
    for (int r = 0; r < rows; ++r) {
        DimObservation o;
        o.leaf = table.leafOfRow(r);
        o.path = table.leaf(o.leaf).path;
        o.dim = table.dimOfRow(r);
        o.values = QVector<qint64>(table.row(r), table.row(r) + calls);
        o.dynamic = !rowDim[r].isEmpty();
        o.dimName = rowDim[r]; // "auto" for Dim.AUTO
        result.observations << o;
    }
    return result;
}

} // namespace dimscope
