// SPDX-License-Identifier: GPL-3.0-or-later
#include "benchcapture.h"

#include "capturebuilder.h"
#include "capturefilewriter.h"

#include <QStringList>

namespace dimscope::test {

namespace {

Capture benchCapture(const BenchCaptureShape &s)
{
    QStringList calls;
    for (int c = 0; c < s.calls; ++c) {
        // Call 0 is the prefill (16 tokens); then one token a call over a growing cache.
        const qint64 past = 16 + c, seq = c == 0 ? 16 : 1;
        calls << QStringLiteral("input_ids=2x%1:i64 attention_mask=2x%2:i64 past_key_values=cache(%3:2x%4x%5x%6:bf16)")
                     .arg(seq)
                     .arg(past + seq)
                     .arg(s.layers)
                     .arg(s.heads)
                     .arg(past)
                     .arg(s.headDim);
    }
    Capture capture = makeCapture(calls.join(QLatin1Char('|')));
    capture.producer = QStringLiteral("bench_capture_open");
    capture.torchVersion = QStringLiteral("2.6.0");
    capture.modelClass = QStringLiteral("bench.LM");
    for (CapturedCall &call : capture.calls) {
        call.numPositional = 1;
        call.constantKwargs.insert(QStringLiteral("use_cache"), true);
    }
    return capture;
}

} // namespace

qint64 writeBenchCapture(const QString &path, const BenchCaptureShape &shape)
{
    return CaptureFileWriter(benchCapture(shape)).write(path);
}

} // namespace dimscope::test
