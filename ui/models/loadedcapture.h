#pragma once

#include "models/alignedtree.h"
#include "models/shapesummary.h"
#include "shapes/inferenceresult.h"

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

    static QSharedPointer<const LoadedCapture> build(const Capture &capture, const AlignedTree::Progress &progress = {});
};

using LoadedCapturePtr = QSharedPointer<const LoadedCapture>;

} // namespace dimscope

Q_DECLARE_METATYPE(dimscope::LoadedCapturePtr)
