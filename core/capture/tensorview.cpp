#include "capture/tensorview.h"

#include "capture/mappedfile.h"

namespace dimscope {

qint64 TensorView::numel() const
{
    qint64 n = 1;
    for (qint64 d : shape)
        n *= d; // cannot overflow: the reader checked numel * dtype size
    return n;
}

bool TensorView::isAligned() const
{
    return reinterpret_cast<quintptr>(data) % quintptr(dtype::byteSize(dtype)) == 0;
}

std::optional<TensorView> tensorView(const Capture &capture, const Leaf &leaf, QString *error)
{
    auto failed = [&](const QString &m) -> std::optional<TensorView> {
        if (error)
            *error = m;
        return std::nullopt;
    };
    if (!leaf.isTensor())
        return failed(QStringLiteral("leaf %1 is not a tensor").arg(leaf.path));
    if (!capture.mapping)
        return failed(QStringLiteral("leaf %1: the capture has no file mapping").arg(leaf.path));
    const uchar *data = capture.bytes(leaf);
    if (!data)
        return failed(QStringLiteral("leaf %1: its bytes lie outside the mapped file").arg(leaf.path));
    TensorView v;
    v.data = leaf.byteSize > 0 ? data : nullptr;
    v.byteSize = leaf.byteSize;
    v.dtype = leaf.dtype;
    v.shape = leaf.shape;
    v.keepAlive = capture.mapping;
    return v;
}

} // namespace dimscope
