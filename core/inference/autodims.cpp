// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/autodims.h"

#include <QHash>

#include <algorithm>

namespace dimscope {

QVector<int> AutoDim::callsItVariesIn() const
{
    QVector<int> calls;
    qint64 first = -1;
    for (int c = 0; c < sizes.size(); ++c) {
        if (sizes[c] < 0)
            continue;
        if (first < 0)
            first = sizes[c];
        else if (sizes[c] != first)
            calls << c;
    }
    return calls;
}

qint64 AutoDim::minSize() const
{
    qint64 m = -1;
    for (qint64 v : sizes)
        if (v >= 0)
            m = m < 0 ? v : std::min(m, v);
    return m;
}

qint64 AutoDim::maxSize() const
{
    return sizes.isEmpty() ? -1 : *std::max_element(sizes.begin(), sizes.end());
}

namespace {

// The dim rows `current` makes Dim.AUTO, ascending.
QVector<int> autoRows(const ShapeTable &table, const ConstraintSet &current)
{
    QVector<int> rows;
    for (const LeafConstraint &leaf : current.leaves()) {
        const int li = table.indexOf(leaf.path);
        if (li < 0)
            continue;
        const ShapeTable::LeafInfo &info = table.leaf(li);
        for (int d = 0; d < leaf.dims.size() && d < info.rank; ++d)
            if (leaf.dims.at(d).kind == DimAssignment::Kind::Auto)
                rows << info.firstDim + d;
    }
    std::sort(rows.begin(), rows.end());
    return rows;
}

void fillSizes(const ShapeTable &table, AutoDim *dim)
{
    dim->sizes.fill(-1, table.callCount());
    for (int c = 0; c < table.callCount(); ++c) {
        for (int r : std::as_const(dim->rows)) {
            if (table.value(r, c) >= 0) {
                dim->sizes[c] = table.value(r, c);
                break;
            }
        }
    }
}

} // namespace

QVector<AutoDim> AutoDims::find(const InferenceResult &inference, const ConstraintSet &current)
{
    const ShapeTable &table = inference.table;
    const QVector<int> rows = autoRows(table, current);
    QHash<int, int> groupOfRow; // dim row -> index in inference.autoGroups
    for (int g = 0; g < inference.autoGroups.size(); ++g)
        for (int r : inference.autoGroups.at(g).rows)
            groupOfRow.insert(r, g);
    QVector<AutoDim> grouped(inference.autoGroups.size());
    QVector<AutoDim> others;
    for (int r : rows) {
        const int g = groupOfRow.value(r, -1);
        if (g >= 0) {
            grouped[g].rows << r;
            continue;
        }
        AutoDim own;
        own.name = QStringLiteral("%1 dim %2").arg(table.leaf(table.leafOfRow(r)).path).arg(table.dimOfRow(r));
        own.rows << r;
        others << own;
    }
    QVector<AutoDim> out;
    for (int g = 0; g < grouped.size(); ++g) {
        AutoDim &dim = grouped[g];
        if (dim.rows.isEmpty())
            continue;
        dim.inferredName = inference.autoGroups.at(g).name;
        dim.name = current.dim(dim.inferredName) ? dim.inferredName + QStringLiteral(" (auto)") : dim.inferredName;
        out << dim;
    }
    out += others;
    for (AutoDim &dim : out)
        fillSizes(table, &dim);
    return out;
}

} // namespace dimscope
