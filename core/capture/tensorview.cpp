// SPDX-License-Identifier: GPL-3.0-or-later
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

bool TensorView::read(qint64 begin, qint64 count, void *out, QString *error) const
{
    if (begin < 0 || count < 0 || begin > byteSize - count) {
        *error = QStringLiteral("bytes [%1, %2) lie outside the tensor's %3").arg(begin).arg(begin + count).arg(byteSize);
        return false;
    }
    if (!keepAlive) {
        *error = QStringLiteral("the tensor has no file");
        return false;
    }
    return keepAlive->readAt(fileOffset + begin, count, out, error);
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
    // The mapping's pages past the file's end would fault: check the file first.
    const qint64 now = capture.mapping->currentSize();
    if (now >= 0 && now < leaf.fileOffset + leaf.byteSize)
        return failed(QStringLiteral("leaf %1: %2").arg(leaf.path, capture.mapping->shrankError(leaf.fileOffset, leaf.fileOffset + leaf.byteSize)));
    const uchar *data = capture.bytes(leaf);
    if (!data)
        return failed(QStringLiteral("leaf %1: its bytes lie outside the mapped file").arg(leaf.path));
    TensorView v;
    v.data = leaf.byteSize > 0 ? data : nullptr;
    v.byteSize = leaf.byteSize;
    v.fileOffset = leaf.fileOffset;
    v.dtype = leaf.dtype;
    v.shape = leaf.shape;
    v.keepAlive = capture.mapping;
    return v;
}

} // namespace dimscope
