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
// For a LibTorch tensor over the same bytes include "capture/torchtensor.h" (only
// from the few .cpp files that use LibTorch).
struct TensorView {
    const uchar *data = nullptr; // nullptr for a 0-byte tensor
    qint64 byteSize = 0;
    DType dtype = DType::F32;
    QVector<qint64> shape;
    QSharedPointer<MappedFile> keepAlive;

    qint64 numel() const;
    // Whether data is aligned for its element type (always so for files written by
    // the safetensors library or dimscope, which pad the header to 8 bytes).
    bool isAligned() const;
};

// nullopt with *error when the leaf is not a tensor or the capture has no mapping.
std::optional<TensorView> tensorView(const Capture &capture, const Leaf &leaf, QString *error = nullptr);

} // namespace dimscope
