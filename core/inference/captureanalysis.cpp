// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/captureanalysis.h"

#include "capture/capturereader.h"

namespace dimscope {

std::optional<CaptureAnalysis> CaptureAnalysis::open(const QString &path, QString *error,
                                                     const InferenceOptions &options)
{
    std::optional<Capture> capture = CaptureReader::open(path, error);
    if (!capture) {
        if (error && error->isEmpty())
            *error = QStringLiteral("%1: not a readable capture").arg(path);
        return std::nullopt;
    }
    return of(std::move(*capture), options);
}

CaptureAnalysis CaptureAnalysis::of(Capture capture, const InferenceOptions &options)
{
    CaptureAnalysis a;
    a.inference = infer(capture, options);
    a.capture = std::move(capture);
    return a;
}

InferenceResult CaptureAnalysis::infer(const Capture &capture, const InferenceOptions &options)
{
    return ShapeInference::infer(capture, completedOptions(capture, options));
}

InferenceOptions CaptureAnalysis::completedOptions(const Capture &capture, InferenceOptions options)
{
    if (!options.batchForAll && options.batchFor.isEmpty())
        options.batchForAll = InferenceOptions::defaultsFor(capture).batchForAll;
    return options;
}

} // namespace dimscope
