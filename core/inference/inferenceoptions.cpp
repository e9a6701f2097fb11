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

} // namespace dimscope
