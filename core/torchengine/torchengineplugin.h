// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The plugin object of libdimscope_torchengine.so: the tensor engine implemented with
// LibTorch (torchstats.cpp). Loaded by TensorEngine (capture/tensorengine.h) only.

#include "capture/tensorengine.h"

#include <QObject>

namespace dimscope {

class TorchEnginePlugin : public QObject, public TensorEngineInterface
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID DIMSCOPE_TENSOR_ENGINE_IID)
    Q_INTERFACES(dimscope::TensorEngineInterface)

public:
    QString libtorchVersion() const override;
    TensorStats statistics(const TensorBytes &tensor, const TensorStatsOptions &options) const override;
};

} // namespace dimscope
