// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inference/inferenceresult.h"

#include <QString>
#include <QVector>

namespace dimscope {

// Leaf dimensions the constraint set leaves to torch (Dim.AUTO), grouped the way
// inference grouped them, so that the window can show them beside the Dims and count
// them where a call's sizes of 0 or 1 matter (the worker checks every dynamic
// dimension of the example call, Dim.AUTO included).
struct AutoDim {
    QString name;         // what the window calls it: the inferred group's name, or "PATH dim D"
    QString inferredName; // the inferred group's name, which its warnings quote; empty for a
                          // dimension the user made Dim.AUTO
    QVector<int> rows;    // ShapeTable dim rows, ascending
    QVector<qint64> sizes; // per call: the first member's size the call has, -1 where none

    // The calls whose size differs from that of the first call that has one (none: it never varies).
    QVector<int> callsItVariesIn() const;
    qint64 minSize() const;
    qint64 maxSize() const;
};

class AutoDims
{
public:
    // The Dim.AUTO dimensions of `current` (a set on `inference`'s table). A group inference
    // proposed as Dim.AUTO keeps its name while any of its dimensions is still Dim.AUTO
    // (with " (auto)" added when a Dim of `current` has that name); a dimension the user
    // made Dim.AUTO outside such a group is one of its own, named after it. Inferred
    // groups first, in their order, then the others in leaf order.
    static QVector<AutoDim> find(const InferenceResult &inference, const ConstraintSet &current);
};

} // namespace dimscope
