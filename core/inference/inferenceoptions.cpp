// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/inferenceoptions.h"

#include "capture/capture.h"

namespace dimscope {

InferenceOptions InferenceOptions::defaultsFor(const Capture &capture)
{
    InferenceOptions o;
    o.batchForAll = !capture.transformersVersion.isEmpty() && capture.modelClass.startsWith(QLatin1String("transformers."));
    return o;
}

bool InferenceOptions::isCountLeaf(const QString &path)
{
    if (path.contains(QLatin1String(".layer_attributes[")))
        return path.endsWith(QLatin1String("['size']")) || path.endsWith(QLatin1String("['flag']"));
    return path.contains(QLatin1String(".tokens_seen["));
}

} // namespace dimscope
