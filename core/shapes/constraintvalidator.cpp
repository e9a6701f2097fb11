#include "shapes/constraintvalidator.h"

#include "shapes/constraintset.h"

#include <limits>

namespace dimscope {

QString ConstraintViolation::ruleName(Rule rule)
{
    switch (rule) {
    case Rule::Range: return QStringLiteral("range");
    case Rule::SharedDim: return QStringLiteral("shared Dim");
    case Rule::DerivedRelation: return QStringLiteral("derived relation");
    case Rule::StaticValue: return QStringLiteral("static value");
    case Rule::Rank: return QStringLiteral("rank");
    case Rule::UnknownLeaf: return QStringLiteral("unknown leaf");
    case Rule::Structure: return QStringLiteral("structure");
    case Rule::DerivedRange: return QStringLiteral("derived range");
    }
    return {};
}

ConstraintValidator::ConstraintValidator(const ShapeTable &table)
    : m_table(table)
{
}

namespace {

using Rule = ConstraintViolation::Rule;

struct ResolvedDim {
    int root = 0;   // index into the root rootValues
    qint64 a = 1, b = 0;
    bool derived = false;
    qint64 min = 0, max = std::numeric_limits<qint64>::max();
    QString name, rootName, relation;
};

QString rangeText(qint64 min, qint64 max)
{
    return max == std::numeric_limits<qint64>::max() ? QStringLiteral("[%1, oo]").arg(min)
                                                     : QStringLiteral("[%1, %2]").arg(min).arg(max);
}

class Collector
{
public:
    Collector(ValidationReport *report, int max) : m_report(report), m_max(max) {}
    // `make` builds the message only for the violations that are kept.
    template<typename Make>
    void add(Rule rule, int call, const QString &path, int dim, qint64 observed, const QString &dimName, Make make)
    {
        ++m_report->total;
        if (m_report->violations.size() >= m_max)
            return;
        m_report->violations.append({rule, call, path, dim, observed, dimName, make()});
    }

private:
    ValidationReport *m_report;
    int m_max;
};

} // namespace

ValidationReport ConstraintValidator::validate(const ConstraintSet &set, int maxViolations) const
{
    ValidationReport report;
    Collector out(&report, maxViolations);
    const ShapeTable &t = m_table;
    const int calls = t.callCount();

    for (const ShapeIssue &issue : t.issues())
        out.add(Rule::Structure, issue.calls.isEmpty() ? -1 : issue.calls.first(), issue.path, -1, -1, {},
                [&] { return issue.message; });

    // Resolve Dims: every root gets one value slot per call.
    const auto &decls = set.dims();
    QVector<ResolvedDim> dims(decls.size());
    QHash<QString, int> rootSlot;
    for (int i = 0; i < decls.size(); ++i) {
        if (!decls[i].isDerived())
            rootSlot.insert(decls[i].name, rootSlot.size());
    }
    for (int i = 0; i < decls.size(); ++i) {
        const DimDecl &d = decls[i];
        const DimDecl *root = d.isDerived() ? set.dim(d.root) : &d;
        if (!root)
            continue; // the set's invariants exclude this
        ResolvedDim &r = dims[i];
        r.root = rootSlot.value(root->name);
        r.derived = d.isDerived();
        r.a = d.a;
        r.b = d.b;
        r.min = root->min.value_or(0);
        r.max = root->max.value_or(std::numeric_limits<qint64>::max());
        r.name = d.name;
        r.rootName = root->name;
        r.relation = d.relationText();
        if (r.derived && r.a * r.min + r.b < 0)
            out.add(Rule::DerivedRange, -1, {}, -1, -1, d.name, [&] {
                return QStringLiteral("derived Dim '%1' = %2 goes below 0 for %3 = %4 (the min of '%3'): torch.export "
                                      "rejects it; set the min of '%3' to at least %5")
                    .arg(d.name, r.relation, r.rootName)
                    .arg(r.min)
                    .arg((-r.b + r.a - 1) / r.a);
            });
    }
    QVector<qint64> slotValue(qsizetype(rootSlot.size()) * calls, -1);
    QVector<int> slotRow(qsizetype(rootSlot.size()) * calls, -1);

    const QVector<LeafConstraint> &leaves = set.leaves();
    int matched = 0;
    QString lastName;
    int lastDim = -1;
    for (int li = 0; li < t.leafCount(); ++li) {
        const ShapeTable::LeafInfo &info = t.leaf(li);
        // Sets made from this capture list leaves in table order: try the same index first.
        const LeafConstraint *lc = (li < leaves.size() && leaves[li].path == info.path) ? &leaves[li] : set.leaf(info.path);
        matched += lc ? 1 : 0;
        if (!info.consistent)
            continue;
        if (lc && lc->dims.size() != info.rank) {
            int firstCall = 0;
            while (firstCall < calls && !t.present(li, firstCall))
                ++firstCall;
            out.add(Rule::Rank, firstCall < calls ? firstCall : -1, info.path, -1, info.rank, {}, [&] {
                return QStringLiteral("%1 has rank %2 in the capture but the constraint set gives it %3 dimension(s)")
                    .arg(info.path)
                    .arg(info.rank)
                    .arg(lc->dims.size());
            });
            continue;
        }
        for (int d = 0; d < info.rank; ++d) {
            const int row = info.firstDim + d;
            const qint64 *v = t.row(row);
            const DimAssignment *a = lc ? &lc->dims[d] : nullptr;
            if (!a || a->isStatic()) {
                int first = 0;
                while (first < calls && v[first] < 0)
                    ++first;
                for (int c = first + 1; c < calls; ++c) {
                    if (v[c] >= 0 && v[c] != v[first])
                        out.add(Rule::StaticValue, c, info.path, d, v[c], {}, [&] {
                            return QStringLiteral("call %1, %2 dim %3 = %4: static, but %5 in call %6")
                                .arg(c)
                                .arg(info.path)
                                .arg(d)
                                .arg(v[c])
                                .arg(v[first])
                                .arg(first);
                        });
                }
                continue;
            }
            if (!a->isNamed())
                continue; // auto / dynamic accept any size
            if (a->dim != lastName) {
                lastName = a->dim;
                lastDim = set.indexOfDim(lastName);
            }
            if (lastDim < 0)
                continue;
            const ResolvedDim &rd = dims[lastDim];
            qint64 *rootValues = slotValue.data() + qsizetype(rd.root) * calls;
            int *sources = slotRow.data() + qsizetype(rd.root) * calls;
            for (int c = 0; c < calls; ++c) {
                const qint64 x = v[c];
                if (x < 0)
                    continue;
                qint64 r = x;
                if (rd.derived) {
                    const qint64 diff = x - rd.b;
                    if (diff < 0 || diff % rd.a != 0) {
                        out.add(Rule::DerivedRelation, c, info.path, d, x, rd.name, [&] {
                            return QStringLiteral("call %1, %2 dim %3 = %4: Dim '%5' = %6 cannot be %4 for any size of '%7'")
                                .arg(c)
                                .arg(info.path)
                                .arg(d)
                                .arg(x)
                                .arg(rd.name, rd.relation, rd.rootName);
                        });
                        continue;
                    }
                    r = diff / rd.a;
                }
                if (r < rd.min || r > rd.max)
                    out.add(Rule::Range, c, info.path, d, x, rd.name, [&] {
                        const QString what = rd.derived
                            ? QStringLiteral("Dim '%1' = %2 makes '%3' = %4, outside its range %5")
                                  .arg(rd.name, rd.relation, rd.rootName)
                                  .arg(r)
                                  .arg(rangeText(rd.min, rd.max))
                            : QStringLiteral("outside the range %1 of Dim '%2'").arg(rangeText(rd.min, rd.max), rd.name);
                        return QStringLiteral("call %1, %2 dim %3 = %4: %5").arg(c).arg(info.path).arg(d).arg(x).arg(what);
                    });
                if (rootValues[c] < 0) {
                    rootValues[c] = r;
                    sources[c] = row;
                } else if (rootValues[c] != r) {
                    const int src = sources[c];
                    const QString other = QStringLiteral("%1 dim %2").arg(t.leaf(t.leafOfRow(src)).path).arg(t.dimOfRow(src));
                    const bool derivedInvolved = rd.derived || t.value(src, c) != rootValues[c];
                    out.add(derivedInvolved ? Rule::DerivedRelation : Rule::SharedDim, c, info.path, d, x, rd.name, [&] {
                        if (!derivedInvolved)
                            return QStringLiteral("call %1, %2 dim %3 = %4: Dim '%5' is %6 there (%7); all its dimensions must be equal")
                                .arg(c)
                                .arg(info.path)
                                .arg(d)
                                .arg(x)
                                .arg(rd.name)
                                .arg(rootValues[c])
                                .arg(other);
                        return QStringLiteral("call %1, %2 dim %3 = %4 (Dim '%5' = %6) needs '%7' = %8, but %9 = %10 makes it %11")
                            .arg(c)
                            .arg(info.path)
                            .arg(d)
                            .arg(x)
                            .arg(rd.name, rd.relation, rd.rootName)
                            .arg(r)
                            .arg(other)
                            .arg(t.value(src, c))
                            .arg(rootValues[c]);
                    });
                }
            }
        }
    }
    if (matched < leaves.size()) {
        for (const LeafConstraint &l : leaves) {
            if (t.indexOf(l.path) < 0)
                out.add(Rule::UnknownLeaf, -1, l.path, -1, -1, {}, [&] {
                    return QStringLiteral("'%1' is in the constraint set but no captured call has it as a tensor").arg(l.path);
                });
        }
    }
    return report;
}

} // namespace dimscope
