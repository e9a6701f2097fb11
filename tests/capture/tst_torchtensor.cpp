// SPDX-License-Identifier: GPL-3.0-or-later
// Zero-copy LibTorch views over mapped captures (core/torchengine/torchtensor.h), for
// code that runs LibTorch in process. Links LibTorch itself, unlike every program.
#include <ATen/ATen.h> // LibTorch before Qt (Qt's `slots` macro breaks its headers)

#include "torchtensor.h"

#include "hostilefiles.h"
#include "safetensorswriter.h"

#include "capture/capturereader.h"

#include <QTemporaryDir>
#include "deterministictestmain.h"

using namespace dimscope;
using namespace dimscope::test;

namespace {

// A one-call capture whose inputs are the given tensors, named t0, t1, ...
QByteArray captureOf(const QVector<RawTensor> &tensors)
{
    QJsonArray children;
    QJsonArray keys;
    for (const RawTensor &t : tensors) {
        keys.append(t.name);
        children.append(QJsonObject{{QStringLiteral("kind"), QStringLiteral("tensor")}, {QStringLiteral("tensor"), t.name},
                                    {QStringLiteral("dtype"), t.dtype}, {QStringLiteral("shape"), jsonShape(t.shape)},
                                    {QStringLiteral("path"), t.name}});
    }
    const QJsonObject manifest{
        {QStringLiteral("format"), QStringLiteral("dimscope.capture")}, {QStringLiteral("version"), 1},
        {QStringLiteral("model"), QJsonObject{{QStringLiteral("class"), QStringLiteral("m")}, {QStringLiteral("signature"), QJsonArray()}}},
        {QStringLiteral("calls"), QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
            {QStringLiteral("inputs"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("dict")}, {QStringLiteral("keys"), keys}, {QStringLiteral("children"), children}}}}}},
    };
    return captureBytes(tensors, manifest);
}

} // namespace

class TestTorchTensor : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::optional<Capture> m_capture;

    const Leaf &leaf(int i) const { return m_capture->calls.at(0).inputs.leaves.at(i); }
    enum { I64, I32, Empty, U16, Pad, I64Odd };

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // The int64 tensor goes first to be 8-byte aligned; the last one is
        // deliberately misaligned.
        const QVector<RawTensor> tensors{
            {QStringLiteral("i64"), QStringLiteral("I64"), {2, 3}, bytesOf<qint64>({0, 1, 2, 3, 4, 5})},
            {QStringLiteral("i32"), QStringLiteral("I32"), {3}, bytesOf<qint32>({-2, 4, 10})},
            {QStringLiteral("empty"), QStringLiteral("F32"), {2, 0}, QByteArray()},
            {QStringLiteral("u16"), QStringLiteral("U16"), {2}, bytesOf<quint16>({65535, 1})},
            {QStringLiteral("pad"), QStringLiteral("U8"), {3}, bytesOf<quint8>({1, 2, 3})}, // i64odd at 67
            {QStringLiteral("i64odd"), QStringLiteral("I64"), {2}, bytesOf<qint64>({-7, 9})},
        };
        const QString path = m_dir.filePath(QStringLiteral("views.safetensors"));
        QVERIFY(writeFile(path, captureOf(tensors)));
        QString error;
        m_capture = CaptureReader::open(path, &error);
        QVERIFY2(m_capture, qPrintable(error));
    }

    void viewIsZeroCopy()
    {
        QString error;
        const at::Tensor t = torchTensor(*m_capture, leaf(I64), &error);
        QVERIFY2(t.defined(), qPrintable(error));
        QCOMPARE(t.scalar_type(), at::kLong);
        QCOMPARE(t.sizes().vec(), (std::vector<int64_t>{2, 3}));
        QCOMPARE(static_cast<const void *>(t.data_ptr()), static_cast<const void *>(m_capture->bytes(leaf(I64))));
        QCOMPARE(memcmp(t.data_ptr(), m_capture->bytes(leaf(I64)), 48), 0);
        QCOMPARE(t.sum().item<int64_t>(), int64_t(15));
        QCOMPARE(t.index({1, 2}).item<int64_t>(), int64_t(5));
    }

    void misalignedDataIsCopied()
    {
        QString error;
        const at::Tensor t = torchTensor(*m_capture, leaf(I64Odd), &error);
        QVERIFY2(t.defined(), qPrintable(error));
        QVERIFY(static_cast<const void *>(t.data_ptr()) != static_cast<const void *>(m_capture->bytes(leaf(I64Odd))));
        QCOMPARE(t.index({0}).item<int64_t>(), int64_t(-7));
        QCOMPARE(t.index({1}).item<int64_t>(), int64_t(9));
    }

    void viewOutlivesCapture()
    {
        QString error;
        std::optional<Capture> c = CaptureReader::open(m_capture->filePath, &error);
        QVERIFY2(c, qPrintable(error));
        at::Tensor t = torchTensor(*c, c->calls.at(0).inputs.leaves.at(I32), &error);
        c.reset(); // the tensor's deleter holds the mapping
        QVERIFY(t.defined());
        QCOMPARE(t.max().item<int32_t>(), 10);
    }

    void viewErrors()
    {
        QString error;
        QVERIFY(!torchTensor(*m_capture, leaf(U16), &error).defined());
        QVERIFY2(error.endsWith(QLatin1String(" has no uint16 tensors")), qPrintable(error));
        const at::Tensor empty = torchTensor(*m_capture, leaf(Empty), &error);
        QVERIFY(empty.defined());
        QCOMPARE(empty.numel(), int64_t(0));
        QCOMPARE(empty.sizes().vec(), (std::vector<int64_t>{2, 0}));
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestTorchTensor)
#include "tst_torchtensor.moc"
