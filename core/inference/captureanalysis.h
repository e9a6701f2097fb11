// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"
#include "inference/inferenceresult.h"
#include "inference/shapeinference.h"

#include <QString>

#include <optional>

namespace dimscope {

// A capture and dimscope's proposal for it. The one path from a capture file to
// inferred constraints, taken by the CLI (analyze, export) and the GUI (open), so both
// front ends read and infer a capture the same way.
struct CaptureAnalysis {
    Capture capture;
    InferenceResult inference;

    // Reads `path` (a clear error naming the file otherwise) and infers with
    // completedOptions(options).
    static std::optional<CaptureAnalysis> open(const QString &path, QString *error,
                                               const InferenceOptions &options = {});
    static CaptureAnalysis of(Capture capture, const InferenceOptions &options = {});
    static InferenceResult infer(const Capture &capture, const InferenceOptions &options = {});
    // The user's options with dimscope's defaults where they chose nothing: a
    // transformers model's batch dim is dynamic (InferenceOptions::defaultsFor).
    static InferenceOptions completedOptions(const Capture &capture, InferenceOptions options);
};

} // namespace dimscope
