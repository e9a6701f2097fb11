// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/alignedtree.h"

#include <QStringList>
#include <QVector>

namespace dimscope {

// A leaf's shape over every call that has it: "2 x 4 x [5..9] x 8". A dim is dynamic
// when its value differs between calls.
struct ShapeSummary {
    bool present = false;     // some call has a tensor here
    bool rankVaries = false;  // calls disagree on the rank: shown as the distinct shapes
    QStringList parts;        // one per dim: "4" or "[5..9]"
    QVector<qint64> min, max; // per dim
    QVector<bool> dynamic;    // per dim
    QString text;

    int rank() const { return parts.size(); }
    bool hasDynamicDim() const { return dynamic.contains(true); }

    static ShapeSummary of(const Capture &capture, const AlignedNode &node);
    static QString shapeText(const QVector<qint64> &shape); // "2 x 4 x 8", "scalar"
};

} // namespace dimscope
