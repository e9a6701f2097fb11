// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"

#include <QString>

namespace dimscope::test {

// Writes an in-memory Capture (capturebuilder.h) as a capture file
// (docs/capture-format.md): the manifest in the safetensors __metadata__, every tensor
// leaf's bytes after the header. The bytes are a pattern that differs per tensor (a
// real file, not a sparse one); tensors are named "c<call>/in/<leaf>". Streams the
// data, so a capture of several GB needs no more memory than its largest tensor.
class CaptureFileWriter
{
public:
    explicit CaptureFileWriter(const Capture &capture) : m_capture(capture) {}

    // Returns the number of tensor leaves written, or -1 when `path` cannot be written.
    qint64 write(const QString &path) const;

private:
    const Capture &m_capture;
};

} // namespace dimscope::test
