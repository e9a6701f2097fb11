// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The LibTorch implementation of the tensor engine's calls (capture/tensorengine.h),
// without LibTorch in this header: the plugin class (moc'd, Qt headers) includes it.

#include "capture/tensorengine.h"

namespace dimscope::torchengine {

TensorStats statistics(const TensorBytes &tensor, const TensorStatsOptions &options);
QString libtorchVersion();

} // namespace dimscope::torchengine
