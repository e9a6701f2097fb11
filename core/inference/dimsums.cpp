// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/dimsums.h"

#include "inference/shapetable.h"

#include <QSet>

#include <algorithm>
#include <optional>

namespace dimscope {

namespace {

// The calls where z == x + y, when it holds in every call that has all three, the
// sum changes, and at least 3 calls show it; empty otherwise.
QVector<int> callsWhereSum(const QVector<qint64> &x, const QVector<qint64> &y, const QVector<qint64> &z)
{
    QVector<int> cs;
    QSet<qint64> zs;
    for (int c = 0; c < z.size(); ++c) {
        if (x[c] < 0 || y[c] < 0 || z[c] < 0)
            continue;
        if (z[c] != x[c] + y[c])
            return {};
        cs << c;
        zs.insert(z[c]);
    }
    if (cs.size() < 3 || zs.size() < 2)
        return {};
    return cs;
}

InferenceMessage sumNote(const DimGroup &z, const DimGroup &x, const DimGroup &y, const QVector<int> &calls)
{
    return {InferenceMessage::Severity::Note,
            QStringLiteral("'%1' = '%2' + '%3' in every call that has all three (calls %4): torch.export "
                           "cannot express a sum of two Dims, so they stay separate Dims")
                .arg(z.name, x.name, y.name, describeCalls(calls)),
            z.name, {}, calls};
}

// The note for the first pair of `byValue` that sums to group `zi`, if any.
std::optional<InferenceMessage> firstSumNote(const QVector<DimGroup> &groups, const QVector<int> &byValue, int zi)
{
    for (int i = 0; i < byValue.size(); ++i) {
        for (int j = i; j < byValue.size(); ++j) {
            const int xi = std::min(byValue[i], byValue[j]), yi = std::max(byValue[i], byValue[j]);
            if (xi == zi || yi == zi || xi == yi)
                continue;
            const QVector<int> cs = callsWhereSum(groups[xi].seq, groups[yi].seq, groups[zi].seq);
            if (!cs.isEmpty())
                return sumNote(groups[zi], groups[xi], groups[yi], cs);
        }
    }
    return std::nullopt;
}

} // namespace

QVector<InferenceMessage> sumOfTwoDimsNotes(const QVector<DimGroup> &groups)
{
    QVector<InferenceMessage> notes;
    const QVector<int> byValue = varyingGroupsBySize(groups);
    if (byValue.size() > 64)
        return notes;
    for (int zi : byValue) {
        if (groups[zi].root >= 0)
            continue;
        if (const auto note = firstSumNote(groups, byValue, zi))
            notes << *note;
    }
    return notes;
}

} // namespace dimscope
