#pragma once

#include "shapes/inferenceresult.h"

#include <QStringList>

namespace dimscope {

class Capture;

struct InferenceOptions {
    enum class Mode {
        Observed,  // dynamic where the captured values differ (default)
        AllDynamic // every dimension dynamic (all_dynamic_shapes_from_inputs)
    };
    Mode mode = Mode::Observed;
    // Dim 0 forced dynamic (set_batch_dimension_for): for every tensor input, or for
    // the inputs (top-level names or leaf key paths) listed.
    bool batchForAll = false;
    QStringList batchFor;

    // The defaults for a capture: a transformers model's inputs are batched on dim 0
    // (input ids, masks, caches, images, encoder states), and users export them with
    // a dynamic batch even when every captured call had the same one.
    static InferenceOptions defaultsFor(const Capture &capture);
};

// Proposes a ConstraintSet from the captured calls (design.md, "What dynamic means"):
// per leaf dimension dynamic when its values differ between the calls that have the
// leaf; equal value sequences share one named Dim; exact A*d + B relations become
// derived Dims; ranges from the observations and the 0/1 rule.
class ShapeInference
{
public:
    static InferenceResult infer(const Capture &capture, const InferenceOptions &options = {});
    static InferenceResult infer(const ShapeTable &table, const InferenceOptions &options = {});
};

} // namespace dimscope
