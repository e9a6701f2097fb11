// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/dimgrouping.h"

#include "inference/dynamicdims.h"
#include "inference/shapetable.h"

#include <QHash>

#include <algorithm>

namespace dimscope {

namespace {

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

qint64 firstKnownValue(const qint64 *row, int calls)
{
    qint64 value = -1;
    for (int c = 0; c < calls && value < 0; ++c)
        value = row[c];
    return value;
}

// Builds the groups one dim row at a time, remembering which rows went where.
class GroupBuilder
{
public:
    GroupBuilder(const ShapeTable &table, bool shareConstantBatch) : m_table(table), m_shareConstantBatch(shareConstantBatch) {}

    void add(int row, bool varying)
    {
        const int calls = m_table.callCount();
        const qint64 *v = m_table.row(row);
        const QByteArray key(reinterpret_cast<const char *>(v), int(sizeof(qint64)) * calls);
        int g = varying ? varyingGroupOf(key, v) : constantGroupOf(row, v);
        if (g < 0) {
            g = m_groups.size();
            DimGroup ng;
            ng.seq = QVector<qint64>(v, v + calls);
            ng.varying = varying;
            m_groups << ng;
        }
        m_exact.insert(key, g);
        DimGroup &grp = m_groups[g];
        grp.rows << row;
        for (int c = 0; c < calls; ++c) {
            if (v[c] >= 0) {
                grp.seq[c] = v[c];
                grp.minValue = std::min(grp.minValue, v[c]);
            }
        }
    }

    QVector<DimGroup> take() { return std::move(m_groups); }

private:
    int varyingGroupOf(const QByteArray &key, const qint64 *v) const
    {
        int g = m_exact.value(key, -1);
        for (int i = 0; g < 0 && i < m_groups.size(); ++i) {
            if (m_groups[i].varying && sameSymbol(m_groups[i].seq, v))
                g = i;
        }
        return g;
    }

    // A forced batch dim that never changes shares the group of its value; other
    // constant dims (all-dynamic mode) get a group each (-1).
    int constantGroupOf(int row, const qint64 *v)
    {
        if (m_table.dimOfRow(row) != 0 || !m_shareConstantBatch)
            return -1;
        const qint64 value = firstKnownValue(v, m_table.callCount());
        const int g = m_forcedConstant.value(value, -1);
        if (g < 0)
            m_forcedConstant.insert(value, m_groups.size());
        return g;
    }

    const ShapeTable &m_table;
    const bool m_shareConstantBatch;
    QVector<DimGroup> m_groups;
    QHash<QByteArray, int> m_exact;      // a row's exact values -> group (the common case)
    QHash<qint64, int> m_forcedConstant; // forced batch dims that never change, by value
};

void finishGroup(DimGroup *g)
{
    std::sort(g->rows.begin(), g->rows.end());
    int known = 0;
    for (qint64 v : std::as_const(g->seq)) {
        if (v >= 0) {
            g->meanValue += double(v);
            ++known;
        }
    }
    g->meanValue /= std::max(known, 1);
}

} // namespace

QVector<DimGroup> groupDynamicDims(const ShapeTable &table, const DynamicDims &dynamic, bool shareConstantBatch)
{
    QVector<int> order = dynamic.rows;
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
        return table.leaf(table.leafOfRow(x)).presentCalls > table.leaf(table.leafOfRow(y)).presentCalls;
    });
    GroupBuilder builder(table, shareConstantBatch);
    for (int r : std::as_const(order))
        builder.add(r, dynamic.varying[r]);
    QVector<DimGroup> groups = builder.take();
    for (DimGroup &g : groups)
        finishGroup(&g);
    std::sort(groups.begin(), groups.end(), [](const DimGroup &x, const DimGroup &y) { return x.rows.first() < y.rows.first(); });
    return groups;
}

} // namespace dimscope
