// SPDX-License-Identifier: GPL-3.0-or-later
// Tensor statistics over mapped captures (and over captures truncated while open),
// computed by the tensor engine plugin, which the first statistic loads (the zero-copy
// LibTorch views are tst_torchtensor's; an engine that cannot load, tst_tensorengine's).
#include "hostilefiles.h"
#include "processmaps.h"
#include "safetensorswriter.h"

#include "capture/capturereader.h"
#include "capture/tensorengine.h"
#include "capture/tensorstats.h"
#include "util/buildinfo.h"

#include <QTemporaryDir>
#include "deterministictestmain.h"

#include <cmath>
#include <limits>

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

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

quint16 bf16(float f)
{
    quint32 bits;
    memcpy(&bits, &f, 4);
    return quint16(bits >> 16); // exact for the values used here
}

} // namespace

class TestTensorStats : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::optional<Capture> m_capture;

    const Leaf &leaf(int i) const { return m_capture->calls.at(0).inputs.leaves.at(i); }
    enum { I64, F32, I32, BF16, Bool, Empty, F8, U16, F16, I64Odd };

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // Data is laid out back to back: the int64 tensor goes first to be 8-byte
        // aligned (the safetensors library orders by alignment the same way); the
        // last one is deliberately misaligned.
        const QVector<RawTensor> tensors{
            {QStringLiteral("i64"), QStringLiteral("I64"), {2, 3}, bytesOf<qint64>({0, 1, 2, 3, 4, 5})},
            {QStringLiteral("f32"), QStringLiteral("F32"), {5}, bytesOf<float>({1.0f, kNaN, kInf, -kInf, 3.0f})},
            {QStringLiteral("i32"), QStringLiteral("I32"), {3}, bytesOf<qint32>({-2, 4, 10})},
            {QStringLiteral("bf16"), QStringLiteral("BF16"), {1, 3}, bytesOf<quint16>({bf16(1.5f), bf16(-2.25f), bf16(kNaN)})},
            {QStringLiteral("bool"), QStringLiteral("BOOL"), {4}, bytesOf<quint8>({1, 0, 1, 1})},
            {QStringLiteral("empty"), QStringLiteral("F32"), {2, 0}, QByteArray()},
            {QStringLiteral("f8"), QStringLiteral("F8_E4M3"), {4}, bytesOf<quint8>({0x38, 0x40, 0xC0, 0x7F})},
            {QStringLiteral("u16"), QStringLiteral("U16"), {2}, bytesOf<quint16>({65535, 1})},
            {QStringLiteral("f16"), QStringLiteral("F16"), {2}, bytesOf<quint16>({0x3C00, 0x7C00})},
            {QStringLiteral("i64odd"), QStringLiteral("I64"), {2}, bytesOf<qint64>({-7, 9})},
        };
        const QString path = m_dir.filePath(QStringLiteral("stats.safetensors"));
        QVERIFY(writeFile(path, captureOf(tensors)));
        QString error;
        m_capture = CaptureReader::open(path, &error);
        QVERIFY2(m_capture, qPrintable(error));
    }

    // Opening a capture needs no tensor math: LibTorch is not mapped until the first
    // statistic loads the plugin, which then reports the LibTorch it was built with.
    void engineLoadsOnFirstStatistic()
    {
        QVERIFY(!TensorEngine::isLoaded());
        QVERIFY(!processMaps("libtorch"));
        const TensorStats s = computeTensorStats(*m_capture, 0, I32);
        QVERIFY2(s.ok, qPrintable(s.error));
        QVERIFY(TensorEngine::isLoaded());
        QVERIFY(processMaps("libtorch"));
        QString error;
        const TensorEngineInterface *engine = TensorEngine::get(&error);
        QVERIFY2(engine, qPrintable(error));
        QCOMPARE(engine->libtorchVersion(), BuildInfo::libtorchVersion());
    }

    void stats_data()
    {
        QTest::addColumn<int>("leafIndex");
        QTest::addColumn<qint64>("numel");
        QTest::addColumn<qint64>("nans");
        QTest::addColumn<qint64>("infs");
        QTest::addColumn<double>("min");
        QTest::addColumn<double>("max");
        QTest::addColumn<double>("mean");
        QTest::addColumn<double>("stddev");
        QTest::newRow("float32 with NaN and Inf") << int(F32) << qint64(5) << qint64(1) << qint64(2) << 1.0 << 3.0 << 2.0 << 1.0;
        QTest::newRow("int32") << int(I32) << qint64(3) << qint64(0) << qint64(0) << -2.0 << 10.0 << 4.0 << std::sqrt(24.0);
        QTest::newRow("bfloat16") << int(BF16) << qint64(3) << qint64(1) << qint64(0) << -2.25 << 1.5 << -0.375 << 1.875;
        QTest::newRow("bool") << int(Bool) << qint64(4) << qint64(0) << qint64(0) << 0.0 << 1.0 << 0.75 << std::sqrt(0.1875);
        QTest::newRow("float8 e4m3") << int(F8) << qint64(4) << qint64(1) << qint64(0) << -2.0 << 2.0 << 1.0 / 3.0 << std::sqrt(26.0 / 9.0);
        QTest::newRow("uint16") << int(U16) << qint64(2) << qint64(0) << qint64(0) << 1.0 << 65535.0 << 32768.0 << 32767.0;
        QTest::newRow("float16 with Inf") << int(F16) << qint64(2) << qint64(0) << qint64(1) << 1.0 << 1.0 << 1.0 << 0.0;
        QTest::newRow("int64") << int(I64) << qint64(6) << qint64(0) << qint64(0) << 0.0 << 5.0 << 2.5 << std::sqrt(35.0 / 12.0);
    }

    void stats()
    {
        QFETCH(int, leafIndex);
        const TensorStats s = computeTensorStats(*m_capture, 0, leafIndex);
        QVERIFY2(s.ok, qPrintable(s.error));
        QTEST(s.numel, "numel");
        QTEST(s.nanCount, "nans");
        QTEST(s.infCount, "infs");
        QFETCH(double, min);
        QFETCH(double, max);
        QFETCH(double, mean);
        QFETCH(double, stddev);
        QVERIFY2(qAbs(s.min - min) < 1e-9, qPrintable(QString::number(s.min)));
        QVERIFY2(qAbs(s.max - max) < 1e-9, qPrintable(QString::number(s.max)));
        QVERIFY2(qAbs(s.mean - mean) < 1e-9, qPrintable(QString::number(s.mean)));
        QVERIFY2(qAbs(s.std - stddev) < 1e-9, qPrintable(QString::number(s.std)));
    }

    void statsOfEmptyTensor()
    {
        const TensorStats s = computeTensorStats(*m_capture, 0, Empty);
        QVERIFY2(s.ok, qPrintable(s.error));
        QCOMPARE(s.numel, qint64(0));
        QCOMPARE(s.finiteCount, qint64(0));
        QVERIFY(std::isnan(s.min) && std::isnan(s.max) && std::isnan(s.mean) && std::isnan(s.std));
    }

    void statsErrors()
    {
        TensorStats s = computeTensorStats(*m_capture, 0, 99);
        QVERIFY(!s.ok);
        QCOMPARE(s.error, QStringLiteral("no leaf 99 in call 0"));
        s = computeTensorStats(*m_capture, 3, 0);
        QVERIFY(!s.ok);
        QCOMPARE(s.error, QStringLiteral("no leaf 0 in call 3"));
    }

    void statsOverManyChunks()
    {
        // 3M float32 values 0..3M-1: more than one 1M-element chunk.
        const qint64 n = 3 * 1024 * 1024 + 17;
        QByteArray data(int(n * 4), Qt::Uninitialized);
        float *f = reinterpret_cast<float *>(data.data());
        for (qint64 i = 0; i < n; ++i)
            f[i] = float(i % 1000);
        const QString path = m_dir.filePath(QStringLiteral("big.safetensors"));
        QVERIFY(writeFile(path, captureOf({{QStringLiteral("big"), QStringLiteral("F32"), {n}, data}})));
        QString error;
        const std::optional<Capture> c = CaptureReader::open(path, &error);
        QVERIFY2(c, qPrintable(error));
        const TensorStats s = computeTensorStats(*c, 0, 0);
        QVERIFY2(s.ok, qPrintable(s.error));
        double sum = 0, sq = 0;
        for (qint64 i = 0; i < n; ++i)
            sum += f[i];
        const double mean = sum / double(n);
        for (qint64 i = 0; i < n; ++i)
            sq += (f[i] - mean) * (f[i] - mean);
        QCOMPARE(s.numel, n);
        QCOMPARE(s.max, 999.0);
        QVERIFY(qAbs(s.mean - mean) < 1e-9);
        QVERIFY(qAbs(s.std - std::sqrt(sq / double(n))) < 1e-6);
    }

    // The chunk size is how the work is cut (for cancelling and bounded memory), never
    // what it computes: chunks of 1, 7 and 4093 elements give the same numbers as one
    // chunk over the whole tensor, for odd element counts of several dtypes with NaN
    // and Inf among the values.
    void chunkedEqualsWhole_data()
    {
        QTest::addColumn<QString>("dtype");
        QTest::addColumn<qint64>("numel");
        QTest::addColumn<qint64>("chunk");
        for (const char *dtype : {"F32", "BF16", "I64", "U16", "F8_E5M2"}) {
            for (qint64 numel : {1, 13, 10007}) {
                for (qint64 chunk : {1, 7, 4093}) {
                    if (chunk == 1 && numel > 13)
                        continue; // ten thousand one-element chunks add nothing but time
                    QTest::addRow("%s, %lld in chunks of %lld", dtype, numel, chunk) << QString::fromLatin1(dtype) << numel << chunk;
                }
            }
        }
    }

    void chunkedEqualsWhole()
    {
        QFETCH(QString, dtype);
        QFETCH(qint64, numel);
        QFETCH(qint64, chunk);
        QByteArray data;
        for (qint64 i = 0; i < numel; ++i) {
            // Spread values with a NaN every 97th and an infinity every 89th element
            // (the float types; integers have neither).
            const float v = float((i * 7919) % 1000) / 8.0f - 60.0f;
            const float f = i % 97 == 5 ? kNaN : i % 89 == 3 ? -kInf : v;
            if (dtype == QLatin1String("F32"))
                data += bytesOf<float>({f});
            else if (dtype == QLatin1String("BF16"))
                data += bytesOf<quint16>({bf16(f)});
            else if (dtype == QLatin1String("I64"))
                data += bytesOf<qint64>({qint64(v * 8)});
            else if (dtype == QLatin1String("U16"))
                data += bytesOf<quint16>({quint16((i * 7919) % 65536)});
            else
                data += bytesOf<quint8>({quint8((i * 31) % 256)}); // every e5m2 code: NaNs and infinities too
        }
        const QString path = m_dir.filePath(QStringLiteral("chunks-%1-%2.safetensors").arg(dtype).arg(numel));
        QVERIFY(writeFile(path, captureOf({{QStringLiteral("t"), dtype, {numel}, data}})));
        QString error;
        const std::optional<Capture> c = CaptureReader::open(path, &error);
        QVERIFY2(c, qPrintable(error));

        const TensorStats whole = computeTensorStats(*c, 0, 0, TensorStatsOptions{numel, nullptr});
        const TensorStats chunked = computeTensorStats(*c, 0, 0, TensorStatsOptions{chunk, nullptr});
        QVERIFY2(whole.ok && chunked.ok, qPrintable(whole.error + chunked.error));
        QCOMPARE(chunked.numel, numel);
        QCOMPARE(chunked.finiteCount, whole.finiteCount);
        QCOMPARE(chunked.nanCount, whole.nanCount);
        QCOMPARE(chunked.infCount, whole.infCount);
        if (dtype == QLatin1String("F32") && numel > 100)
            QVERIFY(whole.nanCount > 0 && whole.infCount > 0); // the data exercises both counts
        QCOMPARE(chunked.min, whole.min);
        QCOMPARE(chunked.max, whole.max);
        // Merging per-chunk means and squared deviations rounds differently from one
        // pass: equal to double precision, not bit for bit.
        const double scale = qMax(1.0, qAbs(whole.mean) + whole.std);
        QVERIFY2(qAbs(chunked.mean - whole.mean) < 1e-12 * scale, qPrintable(QStringLiteral("%1 vs %2").arg(chunked.mean, 0, 'g', 17).arg(whole.mean, 0, 'g', 17)));
        QVERIFY2(qAbs(chunked.std - whole.std) < 1e-12 * scale, qPrintable(QStringLiteral("%1 vs %2").arg(chunked.std, 0, 'g', 17).arg(whole.std, 0, 'g', 17)));
    }

    // A set cancel flag stops the work before the next chunk: no statistics, and the
    // result says it was cancelled rather than failed.
    void cancelStopsBetweenChunks()
    {
        const qint64 n = 10000;
        const QString path = m_dir.filePath(QStringLiteral("cancel.safetensors"));
        QVERIFY(writeFile(path, captureOf({{QStringLiteral("t"), QStringLiteral("F32"), {n}, QByteArray(int(n * 4), '\0')}})));
        QString error;
        const std::optional<Capture> c = CaptureReader::open(path, &error);
        QVERIFY2(c, qPrintable(error));
        std::atomic_bool cancel{true};
        const TensorStats s = computeTensorStats(*c, 0, 0, TensorStatsOptions{100, &cancel});
        QVERIFY(!s.ok);
        QVERIFY(s.cancelled);
        QCOMPARE(s.finiteCount, qint64(0)); // not one chunk was read
        cancel = false;
        const TensorStats done = computeTensorStats(*c, 0, 0, TensorStatsOptions{100, &cancel});
        QVERIFY2(done.ok, qPrintable(done.error));
        QVERIFY(!done.cancelled);
        QCOMPARE(done.finiteCount, n);
    }

    // A capture cut in place while open: the stats report the lost bytes (reading
    // them through the mapping would have raised SIGBUS and killed the process).
    void statsOfATruncatedCapture()
    {
        const qint64 n = 2 * 1024 * 1024;
        const QString path = m_dir.filePath(QStringLiteral("shrinking.safetensors"));
        QVERIFY(writeFile(path, captureOf({{QStringLiteral("big"), QStringLiteral("F32"), {n}, QByteArray(int(n * 4), '\0')}})));
        QString error;
        const std::optional<Capture> c = CaptureReader::open(path, &error);
        QVERIFY2(c, qPrintable(error));
        const Leaf &big = c->calls.at(0).inputs.leaves.at(0);
        const qint64 cut = big.fileOffset + big.byteSize / 2;
        QVERIFY(truncateFile(path, cut));
        const TensorStats s = computeTensorStats(*c, 0, 0);
        QVERIFY(!s.ok);
        QCOMPARE(s.error, QStringLiteral("leaf big: the file is now %1 bytes long, %2 when opened: bytes [%3, %4) are gone (truncated while open?)")
                              .arg(cut).arg(c->fileSize).arg(big.fileOffset).arg(big.fileOffset + big.byteSize));
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestTensorStats)
#include "tst_tensorstats.moc"
