// SPDX-License-Identifier: GPL-3.0-or-later
// LibTorch first: Qt's `slots` macro breaks its headers.
#include <ATen/ATen.h>
#include <torch/csrc/api/include/torch/version.h>

#include "torchtensor.h"

#include "capture/mappedfile.h"

namespace dimscope {

at::Tensor torchTensor(const TensorView &view, QString *error)
{
    const auto type = torchScalarType(view.dtype);
    if (!type) {
        if (error)
            *error = QStringLiteral("LibTorch %1 has no %2 tensors").arg(QStringLiteral(TORCH_VERSION), dtype::torchName(view.dtype));
        return at::Tensor();
    }
    const std::vector<int64_t> sizes(view.shape.cbegin(), view.shape.cend());
    const auto options = at::TensorOptions().dtype(*type).device(at::kCPU);
    try {
        if (!view.data) // 0 elements: nothing to view
            return at::empty(sizes, options);
        if (!view.isAligned()) {
            at::Tensor t = at::empty(sizes, options);
            memcpy(t.data_ptr(), view.data, size_t(view.byteSize));
            return t;
        }
        // The deleter owns a reference to the mapping: the bytes outlive the Capture.
        QSharedPointer<MappedFile> keep = view.keepAlive;
        return at::from_blob(const_cast<uchar *>(view.data), sizes,
                             [keep](void *) mutable { keep.reset(); }, options);
    } catch (const std::exception &e) {
        if (error)
            *error = QStringLiteral("LibTorch: %1").arg(QString::fromUtf8(e.what()).section(QLatin1Char('\n'), 0, 0));
        return at::Tensor();
    }
}

at::Tensor torchTensor(const Capture &capture, const Leaf &leaf, QString *error)
{
    const auto view = tensorView(capture, leaf, error);
    if (!view)
        return at::Tensor();
    return torchTensor(*view, error);
}

} // namespace dimscope
