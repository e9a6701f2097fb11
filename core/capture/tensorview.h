// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"

#include <QSharedPointer>
#include <QString>
#include <QVector>

#include <optional>

namespace dimscope {

// A tensor leaf's bytes inside the mapped capture, without LibTorch. The view keeps
// the mapping alive. The bytes are read-only by contract: the mapping is private
// copy-on-write, so a write would never reach the file, but it would be seen by
// every other view of the same capture in this process.
//
// `data` points into the mapping: reading it after the file was truncated in place
// raises SIGBUS (see MappedFile). tensorView() checks the file's size when it makes
// the view; code that reads for a while (statistics) uses read(), which takes the
// bytes from the file with pread and reports a shrunk file as an error.
//
// For a LibTorch tensor over the same bytes include "capture/torchtensor.h" (only
// from the few .cpp files that use LibTorch).
struct TensorView {
    const uchar *data = nullptr; // nullptr for a 0-byte tensor
    qint64 byteSize = 0;
    DType dtype = DType::F32;
    QVector<qint64> shape;
    qint64 fileOffset = 0;       // where `data` lies in the file
    QSharedPointer<MappedFile> keepAlive;

    qint64 numel() const;
    // Copies bytes [begin, begin + count) of the tensor into `out` from the file
    // itself, not the mapping. False with *error when the file has shrunk.
    bool read(qint64 begin, qint64 count, void *out, QString *error) const;
    // Whether data is aligned for its element type (always so for files written by
    // the safetensors library or dimscope, which pad the header to 8 bytes).
    bool isAligned() const;
};

// nullopt with *error when the leaf is not a tensor, the capture has no mapping or
// the file no longer holds the leaf's bytes (it shrank since it was opened).
std::optional<TensorView> tensorView(const Capture &capture, const Leaf &leaf, QString *error = nullptr);

} // namespace dimscope
