// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>

namespace dimscope {

class Capture;

// What ShapeInference makes dynamic besides the dimensions whose values differ.
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

    // Whether any input has its dim 0 forced dynamic.
    bool forcesSomeBatch() const { return batchForAll || !batchFor.isEmpty(); }
    // Whether dim 0 of the leaf `path` of input `arg` is forced dynamic.
    bool forcesBatchOf(const QString &arg, const QString &path) const
    {
        if (isCountLeaf(path))
            return false;
        return batchForAll || batchFor.contains(arg) || batchFor.contains(path);
    }
    // A leaf the recorder made of a count (docs/capture-format.md): an int or bool of a
    // cache layer recorded by its attributes (`…['size']`, `…['flag']`), a sliding
    // layer's `tokens_seen`. Its dim 0 is the count, never a batch: a count that is the
    // same in every call (a window, a compression rate) stays static.
    static bool isCountLeaf(const QString &path);
};

} // namespace dimscope
