// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"

#include <QString>

#include <atomic>

namespace dimscope {

// Summary numbers of one tensor leaf, for the leaf inspector. min, max, mean and std
// are over the finite values only (NaN and ±Inf are counted apart, so that one NaN
// does not hide the rest); std is the population standard deviation. They are NaN
// when there is no finite value (e.g. an empty tensor). Integers and bools count as
// numbers (false 0, true 1).
struct TensorStats {
    bool ok = false;
    QString error;        // why not, when !ok
    qint64 numel = 0;
    qint64 finiteCount = 0;
    qint64 nanCount = 0;
    qint64 infCount = 0;  // +Inf and -Inf
    double min = 0, max = 0, mean = 0, std = 0;
    bool cancelled = false; // stopped between chunks by TensorStatsOptions::cancel (then !ok)
};

// How the statistics walk the tensor. Each chunk is read from the file and converted
// to double on its own, so memory stays bounded (about 10 bytes per element of one
// chunk) and a cancel is seen within one chunk's work (tens of ms) of being set.
struct TensorStatsOptions {
    qint64 chunkElements = qint64(1) << 20;
    // Checked before each chunk: set by the GUI when the selection moves on.
    const std::atomic_bool *cancel = nullptr;
};

// Computed by the tensor engine (tensorengine.h: LibTorch in a plugin, loaded by the
// first call, which waits for it) over the tensor's bytes, read from the file in
// chunks (bounded extra memory whatever the tensor's size; a file that shrank since
// it was opened gives an error). When the plugin cannot be loaded, !ok with an error
// naming its path and the loader's message. Thread-safe: the GUI calls it off its
// thread.
// `call`, `leaf` index capture.calls and that call's input leaves.
TensorStats computeTensorStats(const Capture &capture, int call, int leaf, const TensorStatsOptions &options = {});
TensorStats computeTensorStats(const Capture &capture, const Leaf &leaf, const TensorStatsOptions &options = {});

} // namespace dimscope
