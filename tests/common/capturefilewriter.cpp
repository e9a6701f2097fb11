// SPDX-License-Identifier: GPL-3.0-or-later
#include "capturefilewriter.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtEndian>

#include <algorithm>

namespace dimscope::test {

namespace {

struct TensorEntry {
    QByteArray name;
    DType dtype;
    QVector<qint64> shape;
    qint64 bytes;
};


QByteArray shapeText(const QVector<qint64> &shape)
{
    QByteArray t = "[";
    for (int i = 0; i < shape.size(); ++i)
        t += (i ? ", " : "") + QByteArray::number(shape[i]);
    return t + "]";
}

// Builds the manifest's nodes and lists the tensors they name, in file order.
class ManifestWriter
{
public:
    explicit ManifestWriter(QVector<TensorEntry> &tensors) : m_tensors(tensors) {}

    // Tensors are numbered per call.
    void startCall() { m_callTensors = 0; }

    QJsonObject node(const CallTree &tree, int index, int call)
    {
        const TreeNode &n = tree.nodes[index];
        QJsonObject o{{QStringLiteral("kind"), nodeKindName(n.kind)}};
        if (n.leaf >= 0)
            return leaf(o, tree.leaves[n.leaf], call);
        if (!n.typeName().isEmpty())
            o.insert(QStringLiteral("type"), n.typeName());
        if (!n.flavour().isEmpty())
            o.insert(QStringLiteral("flavour"), n.flavour());
        if (n.kind != NodeKind::List && n.kind != NodeKind::Tuple) {
            o.insert(n.kind == NodeKind::NamedTuple ? QStringLiteral("fields") : QStringLiteral("keys"),
                     QJsonArray::fromStringList(n.keys));
        }
        if (n.kind == NodeKind::Custom)
            o.insert(QStringLiteral("context"), n.context().isNull() || n.context().isUndefined() ? QJsonArray::fromStringList(n.keys) : n.context());
        QJsonArray children;
        for (int child : n.children)
            children.append(node(tree, child, call));
        o.insert(QStringLiteral("children"), children);
        return o;
    }

private:
    QJsonObject leaf(QJsonObject o, const Leaf &l, int call)
    {
        o.insert(QStringLiteral("path"), l.path);
        if (!l.isTensor()) {
            if (l.kind != NodeKind::None)
                o.insert(QStringLiteral("value"), l.value);
            return o;
        }
        const QByteArray name = "c" + QByteArray::number(call) + "/in/" + QByteArray::number(m_callTensors++);
        qint64 bytes = dtype::byteSize(l.dtype);
        for (qint64 d : l.shape)
            bytes *= d;
        m_tensors.append({name, l.dtype, l.shape, bytes});
        QJsonArray shape;
        for (qint64 d : l.shape)
            shape.append(d);
        o.insert(QStringLiteral("tensor"), QString::fromLatin1(name));
        o.insert(QStringLiteral("dtype"), dtype::safetensorsName(l.dtype));
        o.insert(QStringLiteral("shape"), shape);
        o.insert(QStringLiteral("device"), l.device.isEmpty() ? QStringLiteral("cpu") : l.device);
        return o;
    }

    QVector<TensorEntry> &m_tensors;
    int m_callTensors = 0;
};

QJsonObject modelObject(const Capture &c)
{
    QJsonArray signature;
    for (const Parameter &p : c.signature) {
        QJsonObject o{{QStringLiteral("name"), p.name}, {QStringLiteral("kind"), p.kind},
                      {QStringLiteral("has_default"), p.hasDefault}};
        if (p.hasDefault)
            o.insert(QStringLiteral("default"), p.defaultValue.isUndefined() ? QJsonValue() : p.defaultValue);
        signature.append(o);
    }
    return {{QStringLiteral("class"), c.modelClass}, {QStringLiteral("signature"), signature}};
}

QByteArray manifestOf(const Capture &c, QVector<TensorEntry> &tensors)
{
    QJsonObject flattening;
    for (auto it = c.flattening.cbegin(); it != c.flattening.cend(); ++it)
        flattening.insert(it.key(), it.value());
    ManifestWriter nodes(tensors);
    QJsonArray calls;
    for (const CapturedCall &call : c.calls) {
        nodes.startCall();
        calls.append(QJsonObject{{QStringLiteral("index"), call.index},
                                 {QStringLiteral("num_positional"), call.numPositional},
                                 {QStringLiteral("inputs"), nodes.node(call.inputs, call.inputs.root, call.index)},
                                 {QStringLiteral("missing"), QJsonArray::fromStringList(call.missing)},
                                 {QStringLiteral("filled"), QJsonArray::fromStringList(call.filled)},
                                 {QStringLiteral("constant_kwargs"), call.constantKwargs},
                                 {QStringLiteral("outputs"), QJsonValue()}});
    }
    // Members in InputRecorder's order (python/dimscope/capture/recorder.py): format
    // and version first, calls last. A QJsonObject sorts its keys, which puts the
    // calls first: no recorded capture looks like that, and a reader pays for it
    // (tst_capturereader's hand-made manifests keep that order covered).
    const QList<QPair<QString, QJsonValue>> members{
        {QStringLiteral("format"), QStringLiteral("dimscope.capture")},
        {QStringLiteral("version"), c.formatVersion},
        {QStringLiteral("producer"), c.producer},
        {QStringLiteral("torch_version"), c.torchVersion},
        {QStringLiteral("transformers_version"), c.transformersVersion.isEmpty() ? QJsonValue() : QJsonValue(c.transformersVersion)},
        {QStringLiteral("model"), modelObject(c)},
        {QStringLiteral("flattening"), flattening},
        {QStringLiteral("value_if_missing"), QJsonArray::fromStringList(c.valueIfMissing)},
        {QStringLiteral("calls"), calls}};
    QByteArray manifest = "{";
    for (const auto &[key, value] : members) {
        if (manifest.size() > 1)
            manifest += ',';
        // A value alone is written as the only element of an array, brackets cut.
        const QByteArray element = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
        manifest += '"' + key.toUtf8() + "\":" + element.mid(1, element.size() - 2); // the keys need no escapes
    }
    return manifest + '}';
}

// The safetensors header, written by hand: a QJsonObject of tens of thousands of keys
// is built in quadratic time.
QByteArray headerOf(const QByteArray &manifest, const QVector<TensorEntry> &tensors)
{
    QByteArray header = R"({"__metadata__": {"dimscope.manifest": ")";
    header.reserve(manifest.size() * 5 / 4 + tensors.size() * 100);
    for (char ch : manifest) {
        if (ch == '"' || ch == '\\')
            header.append('\\');
        header.append(ch);
    }
    header += "\"}";
    qint64 offset = 0;
    for (const TensorEntry &t : tensors) {
        header += ", \"" + t.name + R"(": {"dtype": ")" + dtype::safetensorsName(t.dtype).toLatin1() + R"(", "shape": )"
                + shapeText(t.shape) + R"(, "data_offsets": [)" + QByteArray::number(offset) + ", "
                + QByteArray::number(offset + t.bytes) + "]}";
        offset += t.bytes;
    }
    header += "}";
    while (header.size() % 8)
        header += ' ';
    return header;
}

} // namespace

qint64 CaptureFileWriter::write(const QString &path) const
{
    QVector<TensorEntry> tensors;
    const QByteArray header = headerOf(manifestOf(m_capture, tensors), tensors);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return -1;
    QByteArray length(8, '\0');
    qToLittleEndian<quint64>(quint64(header.size()), length.data());
    f.write(length);
    f.write(header);
    qint64 largest = 0;
    for (const TensorEntry &t : tensors)
        largest = std::max(largest, t.bytes);
    QByteArray pattern(int(largest), Qt::Uninitialized);
    for (int i = 0; i < pattern.size(); ++i)
        pattern[i] = char(i * 131 + 7);
    for (int i = 0; i < tensors.size(); ++i) {
        if (tensors[i].bytes == 0)
            continue;
        pattern[0] = char(i); // each tensor's bytes differ from its neighbours'
        if (f.write(pattern.constData(), tensors[i].bytes) != tensors[i].bytes)
            return -1;
    }
    return f.error() == QFile::NoError ? tensors.size() : -1;
}

} // namespace dimscope::test
