// SPDX-License-Identifier: GPL-3.0-or-later
#include "torchengineplugin.h"

#include "torchstats.h"

namespace dimscope {

QString TorchEnginePlugin::libtorchVersion() const { return torchengine::libtorchVersion(); }

TensorStats TorchEnginePlugin::statistics(const TensorBytes &tensor, const TensorStatsOptions &options) const
{
    return torchengine::statistics(tensor, options);
}

} // namespace dimscope
