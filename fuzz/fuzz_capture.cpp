// SPDX-License-Identifier: GPL-3.0-or-later
// libFuzzer target: CaptureReader (docs/capture-format.md) on arbitrary bytes.
// A capture is mapped from a file, so the input is written to one (FuzzInputFile).
// When a file opens, every tensor leaf's view is made and its first bytes read:
// the offsets and sizes the reader accepted must lie inside the file.

#include "capture/capturereader.h"
#include "capture/tensorview.h"
#include "fuzzinputfile.h"

#include <cstdio>
#include <cstdlib>

using namespace dimscope;

namespace {

void readEveryTensor(const Capture &capture)
{
    char head[64];
    for (const CapturedCall &call : capture.calls) {
        for (const CallTree *tree : {&call.inputs, &call.outputs}) {
            for (const Leaf &leaf : tree->leaves) {
                if (!leaf.isTensor())
                    continue;
                QString error;
                const std::optional<TensorView> view = tensorView(capture, leaf, &error);
                if (!view) {
                    // The file is not touched while the target runs: a leaf the reader
                    // accepted must have its bytes.
                    std::fprintf(stderr, "accepted leaf %s has no view: %s\n", qPrintable(leaf.path), qPrintable(error));
                    std::abort();
                }
                const qint64 count = qMin<qint64>(view->byteSize, sizeof head);
                if (count > 0 && !view->read(0, count, head, &error)) {
                    std::fprintf(stderr, "accepted leaf %s cannot be read: %s\n", qPrintable(leaf.path), qPrintable(error));
                    std::abort();
                }
            }
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QString path = fuzz::FuzzInputFile::write(data, size, QStringLiteral("input.safetensors"));
    QString error;
    const std::optional<Capture> capture = CaptureReader::open(path, &error);
    if (capture)
        readEveryTensor(*capture);
    else if (error.isEmpty()) {
        std::fprintf(stderr, "CaptureReader refused the file without saying why\n");
        std::abort();
    }
    return 0;
}
