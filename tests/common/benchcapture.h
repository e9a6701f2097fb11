// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The benchmark capture: 256 calls x (input_ids, attention_mask, a DynamicCache of 64
// layers x key and value tensors) = 33,280 tensor leaves. Built in memory
// (capturebuilder.h) and written as a capture file (capturefilewriter.h), no Python, so
// the open benchmark, the GUI's large-capture test and the inspect test can make it in
// a temporary folder.

#include <QString>
#include <QtGlobal>

namespace dimscope::test {

struct BenchCaptureShape {
    int calls = 256;
    int layers = 64;
    // Cache tensors are batch 2 x heads x past x headDim; tiny (1, 1) in quick mode.
    qint64 heads = 1;
    qint64 headDim = 1;

    // The quick mode of the benchmark: the full leaf count with tiny tensors.
    static BenchCaptureShape quick() { return {}; }
    // The full mode: bfloat16 caches of 2x8xSEQx64, several GB of data.
    static BenchCaptureShape full() { return {256, 64, 8, 64}; }
    qint64 leafCount() const { return qint64(calls) * (2 + 2 * layers); }
};

// Writes the capture to `path`; returns the number of tensor leaves, or -1 when the
// file cannot be written.
qint64 writeBenchCapture(const QString &path, const BenchCaptureShape &shape = BenchCaptureShape::quick());

} // namespace dimscope::test
