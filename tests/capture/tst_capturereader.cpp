// SPDX-License-Identifier: GPL-3.0-or-later
// CaptureReader: valid captures (written here and by the safetensors library) and
// malformed files, each with its own error message.
#include "hostilefiles.h"
#include "safetensorswriter.h"

#include "capture/capturereader.h"
#include "capture/mappedfile.h"
#include "capture/tensorview.h"

#include <QFileInfo>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include "deterministictestmain.h"

#include <cstring>
#include <functional>

using namespace dimscope;
using namespace dimscope::test;

namespace {

QJsonObject tensorLeaf(const QString &name, const QString &dtype, const QVector<qint64> &shape, const QString &path)
{
    return QJsonObject{{QStringLiteral("kind"), QStringLiteral("tensor")}, {QStringLiteral("tensor"), name},
                       {QStringLiteral("dtype"), dtype}, {QStringLiteral("shape"), jsonShape(shape)},
                       {QStringLiteral("device"), QStringLiteral("cpu")}, {QStringLiteral("path"), path}};
}

QByteArray floats(int n, float start)
{
    QByteArray b;
    for (int i = 0; i < n; ++i) {
        const float v = start + float(i);
        b.append(reinterpret_cast<const char *>(&v), 4);
    }
    return b;
}

// Two calls: x (2x3 then 4x3), a one-layer key_value_dict cache, an int; call 0 has outputs.
struct Base {
    QVector<RawTensor> tensors{
        {QStringLiteral("c0/in/0"), QStringLiteral("F32"), {2, 3}, floats(6, 0)},
        {QStringLiteral("c0/in/1"), QStringLiteral("F32"), {1, 2}, floats(2, 100)},
        {QStringLiteral("c1/in/0"), QStringLiteral("F32"), {4, 3}, floats(12, 10)},
        {QStringLiteral("c1/in/1"), QStringLiteral("F32"), {1, 3}, floats(3, 200)},
    };
    QJsonObject manifest;

    Base()
    {
        QJsonArray calls;
        for (int c = 0; c < 2; ++c) {
            const QString p = QStringLiteral("c%1/in/").arg(c);
            const QJsonObject cache{
                {QStringLiteral("kind"), QStringLiteral("custom")}, {QStringLiteral("type"), QStringLiteral("demo.TinyCache")},
                {QStringLiteral("flavour"), QStringLiteral("key_value_dict")}, {QStringLiteral("keys"), QJsonArray{QStringLiteral("key_cache")}},
                {QStringLiteral("context"), QJsonArray{QStringLiteral("key_cache")}},
                {QStringLiteral("children"), QJsonArray{QJsonObject{
                    {QStringLiteral("kind"), QStringLiteral("list")},
                    {QStringLiteral("children"), QJsonArray{tensorLeaf(p + QLatin1Char('1'), QStringLiteral("F32"), {1, c == 0 ? 2 : 3},
                                                                       QStringLiteral("cache.key_cache[0]"))}}}}}};
            const QJsonObject inputs{
                {QStringLiteral("kind"), QStringLiteral("dict")},
                {QStringLiteral("keys"), QJsonArray{QStringLiteral("x"), QStringLiteral("cache"), QStringLiteral("n")}},
                {QStringLiteral("children"), QJsonArray{
                    tensorLeaf(p + QLatin1Char('0'), QStringLiteral("F32"), {c == 0 ? 2 : 4, 3}, QStringLiteral("x")), cache,
                    QJsonObject{{QStringLiteral("kind"), QStringLiteral("int")}, {QStringLiteral("value"), 3}, {QStringLiteral("path"), QStringLiteral("n")}}}}};
            QJsonObject call{{QStringLiteral("index"), c}, {QStringLiteral("num_positional"), 1}, {QStringLiteral("inputs"), inputs},
                             {QStringLiteral("missing"), QJsonArray{QStringLiteral("mask")}}, {QStringLiteral("filled"), QJsonArray()},
                             {QStringLiteral("constant_kwargs"), QJsonObject{{QStringLiteral("use_cache"), true}}}};
            call.insert(QStringLiteral("outputs"), c == 0 ? QJsonValue(QJsonObject{
                {QStringLiteral("kind"), QStringLiteral("tuple")},
                {QStringLiteral("children"), QJsonArray{QJsonObject{{QStringLiteral("kind"), QStringLiteral("float")}, {QStringLiteral("value"), 1.5},
                                                                    {QStringLiteral("path"), QStringLiteral("output[0]")}}}}})
                                                         : QJsonValue());
            calls.append(call);
        }
        manifest = QJsonObject{
            {QStringLiteral("format"), QStringLiteral("dimscope.capture")}, {QStringLiteral("version"), 1},
            {QStringLiteral("producer"), QStringLiteral("tst_capturereader")}, {QStringLiteral("torch_version"), QStringLiteral("2.6.0")},
            {QStringLiteral("transformers_version"), QJsonValue()},
            {QStringLiteral("model"), QJsonObject{{QStringLiteral("class"), QStringLiteral("demo.Model")},
                                                  {QStringLiteral("signature"), QJsonArray{
                                                      QJsonObject{{QStringLiteral("name"), QStringLiteral("x")}, {QStringLiteral("kind"), QStringLiteral("POSITIONAL_OR_KEYWORD")}, {QStringLiteral("has_default"), false}},
                                                      QJsonObject{{QStringLiteral("name"), QStringLiteral("mask")}, {QStringLiteral("kind"), QStringLiteral("POSITIONAL_OR_KEYWORD")}, {QStringLiteral("has_default"), true}, {QStringLiteral("default"), QJsonValue()}},
                                                  }}}},
            {QStringLiteral("flattening"), QJsonObject{{QStringLiteral("demo.TinyCache"), QStringLiteral("key_value_dict")}}},
            {QStringLiteral("value_if_missing"), QJsonArray()},
            {QStringLiteral("calls"), calls},
        };
    }
    QByteArray bytes() const { return captureBytes(tensors, manifest); }
};

// root with the value at `keys` (object keys or array indices) replaced; an undefined value removes it.
QJsonValue setAt(const QJsonValue &root, QStringList keys, const QJsonValue &value)
{
    if (keys.isEmpty())
        return value;
    const QString k = keys.takeFirst();
    if (root.isArray()) {
        QJsonArray a = root.toArray();
        const int i = k.toInt();
        if (value.isUndefined() && keys.isEmpty())
            a.removeAt(i);
        else
            a[i] = setAt(a.at(i), keys, value);
        return a;
    }
    QJsonObject o = root.toObject();
    if (value.isUndefined() && keys.isEmpty())
        o.remove(k);
    else
        o.insert(k, setAt(o.value(k), keys, value));
    return o;
}

QByteArray withManifest(const QString &path, const QJsonValue &value)
{
    Base b;
    b.manifest = setAt(b.manifest, path.split(QLatin1Char('/')), value).toObject();
    return b.bytes();
}

QByteArray withRawManifest(const QByteArray &text)
{
    Base b;
    QByteArray data;
    const QJsonObject header = headerFor(b.tensors, QJsonObject{{QStringLiteral("dimscope.manifest"), QString::fromUtf8(text)}}, &data);
    return assemble(QJsonDocument(header).toJson(QJsonDocument::Compact), data);
}

QByteArray withHeader(const std::function<void(QJsonObject &)> &edit)
{
    Base b;
    QByteArray data;
    QJsonObject header = headerFor(b.tensors, manifestMetadata(b.manifest), &data);
    edit(header);
    return assemble(QJsonDocument(header).toJson(QJsonDocument::Compact), data);
}

// Inputs x, cache, x: the int leaf is renamed "x" too, so that every key path
// agrees with the tree and only the repeated key is wrong.
QByteArray withTwoKeys()
{
    Base b;
    const QStringList root{QStringLiteral("calls"), QStringLiteral("0"), QStringLiteral("inputs")};
    b.manifest = setAt(b.manifest, root + QStringList{QStringLiteral("keys")},
                       QJsonArray{QStringLiteral("x"), QStringLiteral("cache"), QStringLiteral("x")}).toObject();
    b.manifest = setAt(b.manifest, root + QStringList{QStringLiteral("children"), QStringLiteral("2"), QStringLiteral("path")},
                       QStringLiteral("x")).toObject();
    return b.bytes();
}

QByteArray lengthPrefix(quint64 n)
{
    QByteArray out(8, '\0');
    qToLittleEndian<quint64>(n, out.data());
    return out;
}

QJsonObject entry(const QString &dtype, const QJsonArray &shape, const QJsonArray &offsets)
{
    return QJsonObject{{QStringLiteral("dtype"), dtype}, {QStringLiteral("shape"), shape}, {QStringLiteral("data_offsets"), offsets}};
}

} // namespace

class TestCaptureReader : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString write(const QString &name, const QByteArray &bytes)
    {
        const QString path = m_dir.filePath(name);
        if (!writeFile(path, bytes))
            qFatal("cannot write %s", qPrintable(path));
        return path;
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void readsValidCapture()
    {
        const QString path = write(QStringLiteral("valid.safetensors"), Base().bytes());
        QString error;
        const std::optional<Capture> c = CaptureReader::open(path, &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->formatVersion, 1);
        QCOMPARE(c->producer, QStringLiteral("tst_capturereader"));
        QCOMPARE(c->torchVersion, QStringLiteral("2.6.0"));
        QVERIFY(c->transformersVersion.isEmpty());
        QCOMPARE(c->modelClass, QStringLiteral("demo.Model"));
        QCOMPARE(c->signature.size(), 2);
        QCOMPARE(c->signature.at(1).name, QStringLiteral("mask"));
        QVERIFY(c->signature.at(1).hasDefault);
        QVERIFY(!c->signature.at(0).hasDefault);
        QCOMPARE(c->flattening.value(QStringLiteral("demo.TinyCache")), QStringLiteral("key_value_dict"));
        QCOMPARE(c->fileSize, QFileInfo(path).size());
        QCOMPARE(c->calls.size(), 2);

        const CapturedCall &call1 = c->calls.at(1);
        QCOMPARE(call1.index, 1);
        QCOMPARE(call1.numPositional, 1);
        QCOMPARE(call1.missing, QStringList{QStringLiteral("mask")});
        QCOMPARE(call1.constantKwargs.value(QStringLiteral("use_cache")).toBool(), true);
        QVERIFY(call1.outputs.isEmpty());
        const CallTree &t = call1.inputs;
        QCOMPARE(t.nodes.at(t.root).kind, NodeKind::Dict);
        QCOMPARE(t.nodes.at(t.root).keys, (QStringList{QStringLiteral("x"), QStringLiteral("cache"), QStringLiteral("n")}));
        QCOMPARE(t.leaves.size(), 3);
        QStringList paths;
        for (const Leaf &l : t.leaves)
            paths << l.path;
        QCOMPARE(paths, (QStringList{QStringLiteral("x"), QStringLiteral("cache.key_cache[0]"), QStringLiteral("n")}));
        const Leaf &x = t.leaves.at(0);
        QCOMPARE(x.dtype, DType::F32);
        QCOMPARE(x.shape, (QVector<qint64>{4, 3}));
        QCOMPARE(x.device, QStringLiteral("cpu"));
        QCOMPARE(c->tensorName(x), QStringLiteral("c1/in/0"));
        QCOMPARE(x.byteSize, qint64(48));
        // The mapped bytes are the ones written: 10, 11, ... as float32.
        const float *values = reinterpret_cast<const float *>(c->bytes(x));
        QVERIFY(values);
        for (int i = 0; i < 12; ++i)
            QCOMPARE(values[i], 10.0f + float(i));
        const TreeNode &cache = t.nodes.at(t.nodes.at(t.root).children.at(1));
        QCOMPARE(cache.kind, NodeKind::Custom);
        QCOMPARE(cache.typeName(), QStringLiteral("demo.TinyCache"));
        QCOMPARE(cache.flavour(), QStringLiteral("key_value_dict"));
        QCOMPARE(cache.context().toArray().size(), 1);
        QCOMPARE(t.nodes.at(cache.children.at(0)).kind, NodeKind::List);
        QCOMPARE(t.nodes.at(t.leaves.at(1).node).parent, cache.children.at(0));
        QCOMPARE(t.leaves.at(2).kind, NodeKind::Int);
        QCOMPARE(t.leaves.at(2).value.toInteger(), qint64(3));
        QVERIFY(!c->bytes(t.leaves.at(2)));

        const CallTree &out0 = c->calls.at(0).outputs;
        QVERIFY(!out0.isEmpty());
        QCOMPARE(out0.leaves.size(), 1);
        QCOMPARE(out0.leaves.at(0).path, QStringLiteral("output[0]"));
        QCOMPARE(out0.leaves.at(0).value.toDouble(), 1.5);
    }

    void captureOutlivesCopies()
    {
        const QString path = write(QStringLiteral("copies.safetensors"), Base().bytes());
        QString error;
        std::optional<Capture> c = CaptureReader::open(path, &error);
        QVERIFY2(c, qPrintable(error));
        const Capture copy = *c;
        const Leaf leaf = copy.calls.at(0).inputs.leaves.at(0);
        c.reset();
        const float *values = reinterpret_cast<const float *>(copy.bytes(leaf));
        QVERIFY(values);
        QCOMPARE(values[5], 5.0f);
        // Nothing of the header stays modified in the mapping: the file's bytes read back.
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray disk = f.readAll();
        QCOMPARE(QByteArray(reinterpret_cast<const char *>(copy.mapping->data()), int(copy.mapping->size())), disk);
    }

    void readsSafetensorsLibraryFile()
    {
        const QString python = QStringLiteral(DIMSCOPE_SOURCE_DIR "/scripts/torch-python");
        QProcess check;
        check.start(python, {QStringLiteral("--check")});
        if (!check.waitForFinished(120000) || check.exitCode() != 0)
            QSKIP("scripts/torch-python has no torch >= 2.1 here (run scripts/setup); the safetensors-library fixture is skipped");
        const QString path = m_dir.filePath(QStringLiteral("from_python.safetensors"));
        QProcess p;
        p.start(python, {QStringLiteral(DIMSCOPE_SOURCE_DIR "/tests/capture/write_fixture.py"), path});
        QVERIFY(p.waitForFinished(300000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());

        QString error;
        const std::optional<Capture> c = CaptureReader::open(path, &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->calls.size(), 3);
        QCOMPARE(c->modelClass, QStringLiteral("tests.FakeLM"));
        QCOMPARE(c->signature.at(3).kind, QStringLiteral("KEYWORD_ONLY"));
        QCOMPARE(c->calls.at(0).missing, QStringList{QStringLiteral("past_key_values")});
        const CallTree &t = c->calls.at(2).inputs;
        QCOMPARE(t.leaves.size(), 9);
        QCOMPARE(t.leaves.at(2).path, QStringLiteral("past_key_values.key_cache[0]"));
        QCOMPARE(t.leaves.at(2).shape, (QVector<qint64>{2, 4, 4, 8}));
        QCOMPARE(t.leaves.at(6).dtype, DType::BF16);
        QCOMPARE(t.leaves.at(7).kind, NodeKind::Int);
        QCOMPARE(t.leaves.at(8).kind, NodeKind::None);
        // input_ids of call 2 is arange(2) + 2 as int64.
        const qint64 *ids = reinterpret_cast<const qint64 *>(c->bytes(t.leaves.at(0)));
        QVERIFY(ids);
        QCOMPARE(ids[0], qint64(2));
        QCOMPARE(ids[1], qint64(3));
        // The prefill's cache is empty: a 0-byte tensor.
        QCOMPARE(c->calls.at(0).inputs.leaves.at(2).byteSize, qint64(0));
        QCOMPARE(c->calls.at(0).inputs.leaves.at(2).shape, (QVector<qint64>{2, 4, 0, 8}));
        // key_cache[1] of call 2 = arange / 7 + 1 as float32.
        const float *k1 = reinterpret_cast<const float *>(c->bytes(t.leaves.at(3)));
        QCOMPARE(k1[7], 7.0f / 7.0f + 1.0f);
    }

    void escapedNamesAndUnicode()
    {
        Base b;
        b.tensors[0].name = QStringLiteral("c0/in/\"0\"\u00e9");
        QJsonArray calls = b.manifest.value(QStringLiteral("calls")).toArray();
        b.manifest = setAt(b.manifest, QStringLiteral("calls/0/inputs/children/0/tensor").split(QLatin1Char('/')), b.tensors[0].name).toObject();
        const QString path = write(QStringLiteral("escaped.safetensors"), b.bytes());
        QString error;
        const std::optional<Capture> c = CaptureReader::open(path, &error);
        QVERIFY2(c, qPrintable(error));
        QCOMPARE(c->tensorName(c->calls.at(0).inputs.leaves.at(0)), b.tensors[0].name);
    }

    void missingFile()
    {
        QString error;
        const QString path = m_dir.filePath(QStringLiteral("absent.safetensors"));
        QVERIFY(!CaptureReader::open(path, &error));
        QCOMPARE(error, path + QStringLiteral(": no such file"));
        QVERIFY(!CaptureReader::open(m_dir.path(), &error));
        QCOMPARE(error, m_dir.path() + QStringLiteral(": is a directory, not a regular file"));
    }

    // A zero-sized tensor whose other dimensions fit (bytes and strides) is fine.
    void emptyTensorWithLargeDims()
    {
        const QString path = write(QStringLiteral("empty-large.safetensors"), withHeader([](QJsonObject &h) {
            h[QStringLiteral("zero")] = entry(QStringLiteral("F32"), {qint64(1) << 30, 0, qint64(1) << 30}, {0, 0});
        }));
        QString error;
        QVERIFY2(CaptureReader::open(path, &error), qPrintable(error));
    }

    // A FIFO would block open(2) until a writer came (the CLI hung); devices may never
    // end. Both are refused before anything is read.
    void refusesSpecialFiles()
    {
        const QString fifo = m_dir.filePath(QStringLiteral("capture.fifo"));
        QVERIFY(makeFifo(fifo));
        QString error;
        bool opened = true;
        QVERIFY2(!blocksOnFifo(fifo, [&] { opened = CaptureReader::open(fifo, &error).has_value(); }),
                 "CaptureReader::open blocked on a FIFO");
        QVERIFY(!opened);
        QCOMPARE(error, fifo + QStringLiteral(": is a FIFO (named pipe), not a regular file"));
        QVERIFY(!CaptureReader::open(QStringLiteral("/dev/zero"), &error));
        QCOMPARE(error, QStringLiteral("/dev/zero: is a character device, not a regular file"));
        // A link to a capture is its capture.
        const QString target = write(QStringLiteral("linked.safetensors"), Base().bytes());
        const QString link = m_dir.filePath(QStringLiteral("link.safetensors"));
        QVERIFY(QFile::link(target, link));
        QVERIFY2(CaptureReader::open(link, &error), qPrintable(error));
    }

    // A capture truncated in place while it is open: reading a lost tensor through
    // the mapping would raise SIGBUS. New views are refused, views made before read
    // through pread and report the loss, tensors still in the file read as before.
    void truncatedWhileOpen()
    {
        const QString path = write(QStringLiteral("shrinking.safetensors"), Base().bytes());
        QString error;
        const std::optional<Capture> c = CaptureReader::open(path, &error);
        QVERIFY2(c, qPrintable(error));
        const Leaf &x1 = c->calls.at(1).inputs.leaves.at(0); // c1/in/0, the third tensor
        const Leaf &x0 = c->calls.at(0).inputs.leaves.at(0); // c0/in/0, the first
        const std::optional<TensorView> before = tensorView(*c, x1, &error);
        QVERIFY2(before, qPrintable(error));

        const qint64 cut = x1.fileOffset + 4;
        QVERIFY(truncateFile(path, cut));
        const QString gone = QStringLiteral("the file is now %1 bytes long, %2 when opened: bytes [%3, %4) are gone (truncated while open?)")
                                 .arg(cut).arg(c->fileSize).arg(x1.fileOffset).arg(x1.fileOffset + x1.byteSize);
        QVERIFY(!tensorView(*c, x1, &error));
        QCOMPARE(error, QStringLiteral("leaf x: ") + gone);
        QByteArray bytes(int(x1.byteSize), '\0');
        QVERIFY(!before->read(0, x1.byteSize, bytes.data(), &error));
        QCOMPARE(error, gone);

        const std::optional<TensorView> still = tensorView(*c, x0, &error);
        QVERIFY2(still, qPrintable(error));
        float values[6] = {};
        QVERIFY2(still->read(0, sizeof values, values, &error), qPrintable(error));
        QCOMPARE(values[5], 5.0f);
        QVERIFY(!still->read(4, 24, values, &error)); // past the tensor's own end
    }

    // The header is read with pread, not through the mapping: a file cut before its
    // header ends gives an error, whenever the cut happens.
    void headerReadFromTheFile()
    {
        const QString path = write(QStringLiteral("cut-header.safetensors"), Base().bytes());
        QString error;
        std::unique_ptr<MappedFile> file = MappedFile::open(path, &error);
        QVERIFY2(file, qPrintable(error));
        QVERIFY(truncateFile(path, 100));
        QByteArray header(200, '\0');
        QVERIFY(!file->readAt(8, 200, header.data(), &error));
        QCOMPARE(error, QStringLiteral("the file is now 100 bytes long, %1 when opened: bytes [8, 208) are gone (truncated while open?)")
                            .arg(file->size()));
    }

    // Damaged files (bytes flipped anywhere in the header, cut at any length) give an
    // error naming the file, never a crash (this suite also runs under ASan/UBSan).
    void corruptedFilesNeverCrash()
    {
        const QByteArray good = Base().bytes();
        const qint64 headerEnd = 8 + qint64(qFromLittleEndian<quint64>(good.constData()));
        QRandomGenerator rng(1234); // fixed seed: reproducible
        const QString path = m_dir.filePath(QStringLiteral("corrupt.safetensors"));
        int opened = 0, refused = 0;
        for (int i = 0; i < 1500; ++i) {
            QByteArray bytes = good;
            if (i % 5 == 4) {
                bytes.truncate(int(rng.bounded(quint32(good.size()))));
            } else {
                for (int k = 0; k < 1 + i % 3; ++k)
                    bytes[int(rng.bounded(quint32(headerEnd)))] = char(rng.bounded(256));
            }
            QVERIFY(writeFile(path, bytes));
            QString error;
            const std::optional<Capture> c = CaptureReader::open(path, &error);
            if (c) {
                ++opened; // e.g. a flipped byte inside a producer string
                for (const CapturedCall &call : c->calls) {
                    for (const Leaf &l : call.inputs.leaves) {
                        if (l.isTensor() && l.byteSize > 0) {
                            QVERIFY(c->bytes(l));
                            QVERIFY(l.fileOffset + l.byteSize <= c->fileSize);
                        }
                    }
                }
            } else {
                ++refused;
                QVERIFY2(error.startsWith(path + QStringLiteral(": ")) && !error.contains(QLatin1Char('\n')), qPrintable(error));
            }
        }
        QVERIFY(refused > 1000);
        qDebug("%d corrupted files refused, %d still valid", refused, opened);
    }

    void malformed_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        const QString manifestText = QString::fromUtf8(QJsonDocument(Base().manifest).toJson(QJsonDocument::Compact));

        QTest::newRow("empty file") << QByteArray() << "file is 0 bytes long, shorter than the 8-byte safetensors header length";
        QTest::newRow("5 bytes") << QByteArray("\x10\0\0\0\0", 5) << "file is 5 bytes long, shorter than the 8-byte safetensors header length";
        QTest::newRow("header length 0") << lengthPrefix(0) + "{}" << "header length is 0 (a safetensors header is a JSON object)";
        QTest::newRow("header length past end") << lengthPrefix(1000) + "{\"a\":1}"
                                                << "truncated safetensors file: its header runs past the end of the file (15 bytes)";
        QTest::newRow("absurd header length") << lengthPrefix(~quint64(0)) + "{}"
                                              << "truncated safetensors file: its header runs past the end of the file (10 bytes)";
        const QByteArray full = Base().bytes();
        QTest::newRow("truncated file") << full.left(200) << "truncated safetensors file: its header runs past the end of the file (200 bytes)";
        // Any other file: its first bytes are not printed as a "header length".
        QTest::newRow("text file") << QByteArray("root:$y$j9T$secret-hash-here:19000:0:99999:7:::\n")
                                   << "not a safetensors file: it does not start with the length of a header that fits in it (48 bytes)";
        QTest::newRow("8 bytes only") << QByteArray("password") << "not a safetensors file: it does not start with the length of a header that fits in it (8 bytes)";
        QTest::newRow("truncated header JSON") << assemble("{\"c0/in/0\":{\"dtype\":\"F32\",", QByteArray(), false)
                                               << "header is not valid JSON: at byte 34: unexpected end of JSON, expected a member name";
        QTest::newRow("bad JSON") << assemble("{\"a\" 1}", QByteArray(), false)
                                  << "header is not valid JSON: at byte 13: expected ':', found '1'";
        QTest::newRow("trailing comma") << assemble("{\"__metadata__\":{},}", QByteArray(), false)
                                        << "header is not valid JSON: at byte 27: trailing comma in an object";
        QTest::newRow("header is a list") << assemble("[1, 2]", QByteArray()) << "header is not a JSON object (found a list)";
        QTest::newRow("invalid UTF-8") << assemble("{\"a\xff\":{}}", QByteArray(), false)
                                       << "header is not valid JSON: at byte 11: invalid UTF-8 (byte 0xff)";
        QTest::newRow("overlong UTF-8") << assemble("{\"a\xc0\xaf\":{}}", QByteArray(), false)
                                        << "header is not valid JSON: at byte 11: invalid UTF-8 (byte 0xc0)";
        QTest::newRow("garbage after header") << assemble("{} x", QByteArray(), false)
                                              << "header is not valid JSON: at byte 11: unexpected data after the header object";
        QTest::newRow("deep nesting") << assemble("{\"__metadata__\":{},\"t\":{\"x\":" + QByteArray(300, '[') + QByteArray(300, ']') + "}}", QByteArray())
                                      << "header is not valid JSON: at byte 291: JSON nested more than 256 levels deep"; // 256 in all, the header's own object the first
        QTest::newRow("unknown dtype") << withHeader([](QJsonObject &h) {
            h[QStringLiteral("c0/in/0")] = entry(QStringLiteral("F33"), {2, 3}, {0, 24});
        }) << "tensor 'c0/in/0': unknown dtype 'F33'";
        QTest::newRow("negative dim") << withHeader([](QJsonObject &h) {
            h[QStringLiteral("c0/in/0")] = entry(QStringLiteral("F32"), {-2, 3}, {0, 24});
        }) << "tensor 'c0/in/0': shape must be a list of non-negative integers";
        QTest::newRow("fractional dim") << withHeader([](QJsonObject &h) {
            h[QStringLiteral("c0/in/0")] = entry(QStringLiteral("F32"), {2.5, 3}, {0, 24});
        }) << "tensor 'c0/in/0': shape must be a list of non-negative integers";
        QTest::newRow("shape not a list") << withHeader([](QJsonObject &h) {
            QJsonObject e = entry(QStringLiteral("F32"), {}, {0, 24});
            e[QStringLiteral("shape")] = QStringLiteral("2x3");
            h[QStringLiteral("c0/in/0")] = e;
        }) << "tensor 'c0/in/0': shape must be a list of non-negative integers";
        QTest::newRow("three offsets") << withHeader([](QJsonObject &h) {
            h[QStringLiteral("c0/in/0")] = entry(QStringLiteral("F32"), {2, 3}, {0, 24, 48});
        }) << "tensor 'c0/in/0': data_offsets must be [begin, end] with 0 <= begin <= end";
        QTest::newRow("reversed offsets") << withHeader([](QJsonObject &h) {
            h[QStringLiteral("c0/in/0")] = entry(QStringLiteral("F32"), {2, 3}, {24, 0});
        }) << "tensor 'c0/in/0': data_offsets must be [begin, end] with 0 <= begin <= end";
        QTest::newRow("offsets out of range") << withHeader([](QJsonObject &h) {
            h[QStringLiteral("c1/in/1")] = entry(QStringLiteral("F32"), {1, 3}, {92, 104});
        }) << "tensor 'c1/in/1': data_offsets [92, 104] run past the end of the data area (92 bytes)";
        QTest::newRow("overlapping") << withHeader([](QJsonObject &h) {
            h[QStringLiteral("c0/in/1")] = entry(QStringLiteral("F32"), {1, 2}, {16, 24});
        }) << "tensors 'c0/in/0' [0, 24) and 'c0/in/1' [16, 24) overlap";
        QTest::newRow("size mismatch") << withHeader([](QJsonObject &h) {
            h[QStringLiteral("c0/in/0")] = entry(QStringLiteral("F64"), {2, 3}, {0, 24});
        }) << "tensor 'c0/in/0': data_offsets [0, 24] hold 24 bytes but shape [2, 3] of F64 needs 48";
        QTest::newRow("size overflow") << withHeader([](QJsonObject &h) {
            h[QStringLiteral("c0/in/0")] = entry(QStringLiteral("F32"), {qint64(1) << 62, 4}, {0, 24});
        }) << "tensor 'c0/in/0': shape [4611686018427387904, 4] is too large (its byte size overflows)";
        // Order-independent: a 0 anywhere does not excuse dimensions that overflow.
        QTest::newRow("size overflow, zero last") << withHeader([](QJsonObject &h) {
            h[QStringLiteral("zero")] = entry(QStringLiteral("F32"), {qint64(1) << 62, qint64(1) << 62, 0}, {0, 0});
        }) << "tensor 'zero': shape [4611686018427387904, 4611686018427387904, 0] is too large (its other dimensions overflow 64 bits, though a 0 makes it empty)";
        QTest::newRow("size overflow, zero first") << withHeader([](QJsonObject &h) {
            h[QStringLiteral("zero")] = entry(QStringLiteral("F32"), {0, qint64(1) << 62, qint64(1) << 62}, {0, 0});
        }) << "tensor 'zero': shape [0, 4611686018427387904, 4611686018427387904] is too large (its other dimensions overflow 64 bits, though a 0 makes it empty)";
        QTest::newRow("size overflow by the element size") << withHeader([](QJsonObject &h) {
            h[QStringLiteral("zero")] = entry(QStringLiteral("F64"), {0, qint64(1) << 31, qint64(1) << 31}, {0, 0});
        }) << "tensor 'zero': shape [0, 2147483648, 2147483648] is too large (its other dimensions overflow 64 bits, though a 0 makes it empty)";
        QTest::newRow("missing data_offsets") << withHeader([](QJsonObject &h) {
            h[QStringLiteral("c0/in/0")] = QJsonObject{{QStringLiteral("dtype"), QStringLiteral("F32")}, {QStringLiteral("shape"), QJsonArray{2, 3}}};
        }) << "tensor 'c0/in/0': no data_offsets";
        QTest::newRow("entry not an object") << withHeader([](QJsonObject &h) { h[QStringLiteral("c0/in/0")] = 3; })
                                             << "tensor 'c0/in/0': entry must be an object with dtype, shape and data_offsets";
        QTest::newRow("duplicate tensor") << assemble("{\"__metadata__\":{},\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
                                                      "\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}", "xy")
                                          << "header names tensor 'a' twice";
        QTest::newRow("no __metadata__") << withHeader([](QJsonObject &h) { h.remove(QStringLiteral("__metadata__")); })
                                         << "no __metadata__ in the header: a plain safetensors file, not a dimscope capture";
        QTest::newRow("no manifest") << withHeader([](QJsonObject &h) {
            h[QStringLiteral("__metadata__")] = QJsonObject{{QStringLiteral("format"), QStringLiteral("pt")}};
        }) << "__metadata__ has no 'dimscope.manifest': not a dimscope capture";
        QTest::newRow("manifest not a string") << withHeader([](QJsonObject &h) {
            h[QStringLiteral("__metadata__")] = QJsonObject{{QStringLiteral("dimscope.manifest"), QJsonObject()}};
        }) << "__metadata__['dimscope.manifest'] is not a string";
        QTest::newRow("manifest invalid JSON") << withRawManifest("{\"format\": \"dimscope.capture\", \"version\": 1,,}")
                                               << "manifest is not valid JSON: at byte 44: expected a quoted member name, found ','";
        QTest::newRow("producer a broken null") << withRawManifest("{\"format\": \"dimscope.capture\", \"version\": 1, \"producer\": nul}")
                                                << "manifest is not valid JSON: at byte 57: expected null";
        QTest::newRow("manifest truncated") << withRawManifest(manifestText.left(manifestText.size() / 2).toUtf8())
                                            << QStringLiteral("manifest is not valid JSON: at byte %1: unexpected end of JSON inside a list")
                                                   .arg(manifestText.size() / 2);
        QTest::newRow("manifest not an object") << withRawManifest("[1]") << "manifest is not a JSON object (found a list)";
        QTest::newRow("wrong format id") << withManifest(QStringLiteral("format"), QStringLiteral("other.format"))
                                         << "manifest format is 'other.format', expected 'dimscope.capture'";
        QTest::newRow("no format") << withManifest(QStringLiteral("format"), QJsonValue::Undefined)
                                   << "manifest has no 'format' (expected 'dimscope.capture')";
        QTest::newRow("version 2") << withManifest(QStringLiteral("version"), 2)
                                   << "capture format version 2 is not supported (this dimscope reads version 1)";
        QTest::newRow("version a string") << withManifest(QStringLiteral("version"), QStringLiteral("1"))
                                          << "manifest 'version' must be an integer, not a string";
        QTest::newRow("no calls") << withManifest(QStringLiteral("calls"), QJsonValue::Undefined) << "manifest has no 'calls'";
        QTest::newRow("no calls recorded") << withManifest(QStringLiteral("calls"), QJsonArray())
                                           << "manifest 'calls' is empty: a capture holds at least one call";
        QTest::newRow("no model") << withManifest(QStringLiteral("model"), QJsonValue::Undefined) << "manifest has no 'model'";
        QTest::newRow("inputs not a dict") << withManifest(QStringLiteral("calls/0/inputs/kind"), QStringLiteral("tuple"))
                                           << "call 0: 'inputs' must be a dict node keyed by parameter name";
        QTest::newRow("unknown node kind") << withManifest(QStringLiteral("calls/1/inputs/children/1/kind"), QStringLiteral("blob"))
                                           << "call 1, inputs child 1: unknown node kind 'blob'";
        // Written in Python's member order (kind, keys, children), nodes are named by key path.
        QTest::newRow("unknown node kind, key path") << withRawManifest(
            "{\"format\": \"dimscope.capture\", \"version\": 1, \"model\": {\"class\": \"m\", \"signature\": []}, \"calls\": [{"
            "\"index\": 0, \"inputs\": {\"kind\": \"dict\", \"keys\": [\"x\", \"cache\"], \"children\": ["
            "{\"kind\": \"tensor\", \"tensor\": \"c0/in/0\", \"dtype\": \"F32\", \"shape\": [2, 3], \"path\": \"x\"},"
            "{\"kind\": \"custom\", \"type\": \"C\", \"flavour\": \"pytree\", \"keys\": [\"a\"], \"children\": [{\"kind\": \"list\", \"children\": ["
            "{\"kind\": \"blob\"}]}]}]}}]}")
            << "call 0, node cache.a[0]: unknown node kind 'blob'";
        QTest::newRow("tensor absent from header") << withManifest(QStringLiteral("calls/1/inputs/children/1/children/0/children/0/tensor"), QStringLiteral("c1/in/3"))
                                                   << "call 1, leaf cache.key_cache[0]: tensor 'c1/in/3' is not in the header";
        QTest::newRow("leaf dtype disagrees") << withManifest(QStringLiteral("calls/0/inputs/children/0/dtype"), QStringLiteral("F16"))
                                              << "call 0, leaf x: dtype F16 disagrees with the header's F32 for tensor 'c0/in/0'";
        QTest::newRow("leaf shape disagrees") << withManifest(QStringLiteral("calls/1/inputs/children/0/shape"), QJsonArray{3, 4})
                                              << "call 1, leaf x: shape [3, 4] disagrees with the header's [4, 3] for tensor 'c1/in/0'";
        QTest::newRow("leaf unknown dtype") << withManifest(QStringLiteral("calls/0/inputs/children/0/dtype"), QStringLiteral("float32"))
                                            << "call 0, leaf x: unknown dtype 'float32'";
        QTest::newRow("leaf path inconsistent") << withManifest(QStringLiteral("calls/0/inputs/children/1/children/0/children/0/path"),
                                                                QStringLiteral("cache.value_cache[0]"))
                                                << "call 0, leaf cache.value_cache[0]: path does not match its place in the tree (expected cache.key_cache[0])";
        QTest::newRow("keys/children mismatch") << withManifest(QStringLiteral("calls/0/inputs/keys"), QJsonArray{QStringLiteral("x"), QStringLiteral("cache")})
                                                << "call 0, inputs: 2 keys for 3 children";
        // Two inputs under one key would share a key path: one of them vanished.
        QTest::newRow("dict key twice") << withTwoKeys()
                                        << "call 0, inputs: key 'x' appears twice";
        QTest::newRow("custom without flavour") << withManifest(QStringLiteral("calls/0/inputs/children/1/flavour"), QJsonValue::Undefined)
                                                << "call 0, inputs child 1: custom node needs 'type', 'flavour' and 'keys'";
        QTest::newRow("int leaf with text") << withManifest(QStringLiteral("calls/0/inputs/children/2/value"), QStringLiteral("3"))
                                            << "call 0, leaf n: 'value' must be an integer (written without fraction or exponent)";
        QTest::newRow("leaf without path") << withManifest(QStringLiteral("calls/0/inputs/children/2/path"), QJsonValue::Undefined)
                                           << "call 0, inputs child 2: leaf has no 'path'";
        QTest::newRow("call index out of order") << withManifest(QStringLiteral("calls/1/index"), 5)
                                                 << "call 1: 'index' is 5, expected 1 (calls are listed in order)";
        QTest::newRow("filled not missing") << withManifest(QStringLiteral("calls/0/filled"), QJsonArray{QStringLiteral("pixel_values")})
                                            << "call 0: filled input 'pixel_values' is not listed in 'missing'";
        QTest::newRow("unknown parameter kind") << withManifest(QStringLiteral("model/signature/0/kind"), QStringLiteral("POSITIONAL"))
                                                << "model signature parameter 0: unknown parameter kind 'POSITIONAL'";
        QTest::newRow("output path inconsistent") << withManifest(QStringLiteral("calls/0/outputs/children/0/path"), QStringLiteral("out[0]"))
                                                  << "call 0, leaf out[0]: path does not match its place in the tree (expected output[0])";
    }

    void malformed()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        const QString path = write(QStringLiteral("bad-%1.safetensors")
                                       .arg(QString::fromUtf8(QTest::currentDataTag()))
                                       .replace(QLatin1Char(' '), QLatin1Char('_'))
                                       .remove(QLatin1Char('/')),
                                   bytes);
        QString error;
        const std::optional<Capture> c = CaptureReader::open(path, &error);
        QVERIFY(!c);
        QCOMPARE(error, path + QStringLiteral(": ") + expected);
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestCaptureReader)
#include "tst_capturereader.moc"
