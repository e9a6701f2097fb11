// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/shapesummary.h"

namespace dimscope {

QString ShapeSummary::shapeText(const QVector<qint64> &shape)
{
    if (shape.isEmpty())
        return QStringLiteral("scalar");
    QStringList parts;
    parts.reserve(shape.size());
    for (qint64 d : shape)
        parts.append(QString::number(d));
    return parts.join(QStringLiteral(" x "));
}

ShapeSummary ShapeSummary::of(const Capture &capture, const AlignedNode &node)
{
    ShapeSummary s;
    QVector<QVector<qint64>> distinct; // for the varying-rank case, in call order
    for (int c = 0; c < node.leafInCall.size(); ++c) {
        const Leaf *leaf = AlignedTree::leafIn(capture, node, c);
        if (!leaf || !leaf->isTensor())
            continue;
        const QVector<qint64> &shape = leaf->shape;
        if (!s.present) {
            s.present = true;
            s.min = shape;
            s.max = shape;
        } else if (shape.size() != s.min.size()) {
            s.rankVaries = true;
        } else {
            for (int d = 0; d < shape.size(); ++d) {
                s.min[d] = qMin(s.min[d], shape[d]);
                s.max[d] = qMax(s.max[d], shape[d]);
            }
        }
        if (!distinct.contains(shape))
            distinct.append(shape);
    }
    if (!s.present)
        return s;
    if (s.rankVaries) {
        QStringList texts;
        for (const QVector<qint64> &shape : std::as_const(distinct))
            texts.append(shapeText(shape));
        s.min.clear();
        s.max.clear();
        s.text = texts.join(QStringLiteral(" | "));
        return s;
    }
    for (int d = 0; d < s.min.size(); ++d) {
        const bool dyn = s.min[d] != s.max[d];
        s.dynamic.append(dyn);
        s.parts.append(dyn ? QStringLiteral("[%1..%2]").arg(s.min[d]).arg(s.max[d]) : QString::number(s.min[d]));
    }
    s.text = s.parts.isEmpty() ? QStringLiteral("scalar") : s.parts.join(QStringLiteral(" x "));
    return s;
}

} // namespace dimscope
