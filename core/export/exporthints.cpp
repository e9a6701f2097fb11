// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/exporthints.h"

#include "constraints/constraintset.h"
#include "inference/autodims.h"
#include "spec/examplecall.h"
#include "inference/shapetable.h"

#include <optional>

namespace dimscope {

namespace {

// Each named Dim's size per call: the first of its leaf dims the call has (leaf dims
// of one Dim that disagree are ConstraintValidator's violations, not hints).
class DimSizes
{
public:
    // The named Dims of `constraints` first (in its order), then `autoDims`.
    DimSizes(const ShapeTable &table, const ConstraintSet &constraints, const QVector<AutoDim> &autoDims) : m_table(table)
    {
        for (const DimDecl &d : constraints.dims())
            m_rows.append({d.name, {}});
        for (const LeafConstraint &l : constraints.leaves()) {
            const int li = table.indexOf(l.path);
            if (li < 0)
                continue;
            const ShapeTable::LeafInfo &info = table.leaf(li);
            for (int d = 0; d < l.dims.size() && d < info.rank; ++d)
                if (l.dims[d].isNamed()) {
                    const int i = constraints.indexOfDim(l.dims[d].dim);
                    if (i >= 0)
                        m_rows[i].second.append(info.firstDim + d);
                }
        }
        for (const AutoDim &a : autoDims)
            m_rows.append({a.name.endsWith(QLatin1String(" (auto)")) ? a.name : a.name + QStringLiteral(" (auto)"), a.rows});
    }

    int dimCount() const { return m_rows.size(); }
    const QString &name(int i) const { return m_rows[i].first; }

    std::optional<qint64> size(int dim, int call) const
    {
        for (int row : m_rows[dim].second) {
            const qint64 v = m_table.value(row, call);
            if (v >= 0)
                return v;
        }
        return std::nullopt;
    }

private:
    const ShapeTable &m_table;
    QVector<QPair<QString, QVector<int>>> m_rows; // Dim name -> its leaf dims' rows
};

std::optional<MergeCandidate> mergeCandidate(const DimSizes &sizes, int a, int b, int calls)
{
    int both = 0;
    std::optional<qint64> firstValue;
    bool varies = false;
    for (int c = 0; c < calls; ++c) {
        const auto x = sizes.size(a, c), y = sizes.size(b, c);
        if (!x || !y)
            continue;
        if (*x != *y)
            return std::nullopt;
        ++both;
        if (firstValue && *firstValue != *x)
            varies = true;
        firstValue = firstValue ? firstValue : x;
    }
    // Equal in one call, or constant in all, says nothing about the two being one.
    if (both < 2 || !varies)
        return std::nullopt;
    return MergeCandidate{sizes.name(a), sizes.name(b), both};
}

} // namespace

QString ExampleCallHint::sizesText() const
{
    QStringList parts;
    for (const auto &ds : dimSizes)
        parts << QStringLiteral("%1=%2").arg(ds.first).arg(ds.second);
    return parts.join(QStringLiteral(", "));
}

ExportHints ExportHints::compute(const ShapeTable &table, const ConstraintSet &constraints, const QVector<AutoDim> &autoDims)
{
    ExportHints hints;
    const DimSizes sizes(table, constraints, autoDims);
    const int calls = table.callCount();
    const int named = int(constraints.dims().size()); // merge candidates are named Dims only
    for (int a = 0; a < named; ++a) {
        if (constraints.dims()[a].isDerived())
            continue;
        for (int b = a + 1; b < named; ++b) {
            if (constraints.dims()[b].isDerived())
                continue;
            if (const auto m = mergeCandidate(sizes, a, b, calls))
                hints.m_merges.append(*m);
        }
    }
    hints.m_automatic = calls > 0 ? chooseExampleCall(table, constraints) : 0;
    for (int c = 0; c < calls; ++c) {
        ExampleCallHint hint;
        hint.call = c;
        hint.automatic = c == hints.m_automatic;
        for (int d = 0; d < sizes.dimCount(); ++d) {
            const auto v = sizes.size(d, c);
            if (!v)
                continue;
            hint.dimSizes.append({sizes.name(d), *v});
            if (*v == 0 || *v == 1)
                hint.zeroOrOne << QStringLiteral("%1 = %2").arg(sizes.name(d)).arg(*v);
        }
        hints.m_calls.append(hint);
    }
    return hints;
}

} // namespace dimscope
