// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/alignedtree.h"
#include "models/shapesummary.h"
#include "inference/captureanalysis.h"
#include "inference/inferenceresult.h"

#include <QMetaType>
#include <QSharedPointer>

namespace dimscope {

// Everything the views need about one opened capture, computed once off the GUI
// thread and then shared read-only (hence the const shared pointer).
struct LoadedCapture {
    Capture capture;
    AlignedTree tree;
    QVector<ShapeSummary> shapes; // per aligned node (empty summary for containers)
    InferenceResult inference;    // ShapeInference's proposal, computed in the same job
    // Per aligned node, what the tree shows in every paint, counted here once rather
    // than over every call in each data() call.
    QStringList typeTexts;        // "dict", "list[64]", "DynamicCache", "bf16", "f32 | f16"
    QVector<int> presentCalls;    // calls that have the node

    // The Type column's text for a node: container kind, class or the dtypes seen.
    static QString typeText(const Capture &capture, const AlignedNode &node);

    // The views' data for an analysed capture (CaptureAnalysis: the read and the
    // inference both front ends share). Reports (step, steps): one per call while
    // merging the tree, then the summaries; the last report is (steps, steps).
    // Returning false cancels (the result is then incomplete and must be dropped).
    static QSharedPointer<const LoadedCapture> build(CaptureAnalysis analysis, const AlignedTree::Progress &progress = {});
    // An in-memory capture, analysed with the defaults.
    static QSharedPointer<const LoadedCapture> build(const Capture &capture, const AlignedTree::Progress &progress = {});
};

using LoadedCapturePtr = QSharedPointer<const LoadedCapture>;

} // namespace dimscope

Q_DECLARE_METATYPE(dimscope::LoadedCapturePtr)
