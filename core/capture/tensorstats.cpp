// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture/tensorstats.h"

#include "capture/tensorengine.h"
#include "capture/tensorview.h"

namespace dimscope {

TensorStats computeTensorStats(const Capture &capture, int call, int leaf, const TensorStatsOptions &options)
{
    if (call < 0 || call >= capture.calls.size() || leaf < 0 || leaf >= capture.calls.at(call).inputs.leaves.size()) {
        TensorStats s;
        s.error = QStringLiteral("no leaf %1 in call %2").arg(leaf).arg(call);
        return s;
    }
    return computeTensorStats(capture, capture.calls.at(call).inputs.leaves.at(leaf), options);
}

TensorStats computeTensorStats(const Capture &capture, const Leaf &leaf, const TensorStatsOptions &options)
{
    TensorStats s;
    const auto view = tensorView(capture, leaf, &s.error);
    if (!view)
        return s;
    s.numel = view->numel();
    const TensorEngineInterface *engine = TensorEngine::get(&s.error);
    if (!engine)
        return s;
    TensorBytes bytes;
    bytes.dtype = view->dtype;
    bytes.elementSize = dtype::byteSize(view->dtype);
    bytes.numel = s.numel;
    // pread from the file, not the mapping: a file truncated while the statistics run
    // (off the GUI thread, for seconds on a large tensor) gives an error, not SIGBUS.
    bytes.read = [v = *view, path = leaf.path](qint64 begin, qint64 count, void *out, QString *error) {
        QString why;
        if (v.read(begin, count, out, &why))
            return true;
        *error = QStringLiteral("leaf %1: %2").arg(path, why);
        return false;
    };
    return engine->statistics(bytes, options);
}

} // namespace dimscope
