// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/specializationwarnings.h"

#include "inference/shapetable.h"

#include <QSet>

#include <algorithm>

namespace dimscope {

namespace {

// The calls where some member of the group is 0 or 1, and those values.
struct SmallSizes {
    QVector<int> calls;
    QStringList values; // ascending, as text
};

SmallSizes smallSizesOf(const ShapeTable &table, const DimGroup &g)
{
    SmallSizes out;
    QSet<qint64> smallValues;
    for (int c = 0; c < table.callCount(); ++c) {
        for (int r : g.rows) {
            const qint64 v = table.value(r, c);
            if (v == 0 || v == 1) {
                out.calls << c;
                smallValues.insert(v);
                break;
            }
        }
    }
    QList<qint64> vs = smallValues.values();
    std::sort(vs.begin(), vs.end());
    for (qint64 v : std::as_const(vs))
        out.values << QString::number(v);
    return out;
}

QString advice(const DimGroup &g, bool isAuto, int exampleCall, const SmallSizes &small)
{
    if (isAuto)
        return QStringLiteral("it is %1 in the example call %2 (no call has every dynamic size >= 2), so it is proposed "
                              "as Dim.AUTO and that export will specialize it. Capture a call where it is >= 2 next to "
                              "the other inputs to keep it dynamic")
            .arg(g.seq[exampleCall])
            .arg(exampleCall);
    return QStringLiteral("dimscope exports from call %1, where it is >= 2; check that the exported program accepts "
                          "the calls with %2 (replay them), or drop those sizes from the range")
        .arg(exampleCall)
        .arg(small.values.join(QStringLiteral(" or ")));
}

} // namespace

QVector<InferenceMessage> specializationWarnings(const ShapeTable &table, const QVector<DimGroup> &groups,
                                                 const QVector<int> &autoGroups, int exampleCall)
{
    QVector<InferenceMessage> warnings;
    for (int gi = 0; gi < groups.size(); ++gi) {
        const DimGroup &g = groups[gi];
        const SmallSizes small = smallSizesOf(table, g);
        if (small.calls.isEmpty())
            continue;
        QStringList leaves;
        for (int r : g.rows)
            leaves << table.leaf(table.leafOfRow(r)).path;
        warnings.append({InferenceMessage::Severity::Warning,
                         QStringLiteral("Dim '%1' (%2) is %3 in call(s) %4: torch.export specializes sizes 0 and 1; %5")
                             .arg(g.name, membersLabel(table, g.rows), small.values.join(QStringLiteral(" or ")),
                                  describeCalls(small.calls), advice(g, autoGroups.contains(gi), exampleCall, small)),
                         g.name, leaves, small.calls});
    }
    return warnings;
}

} // namespace dimscope
