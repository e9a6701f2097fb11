#include "benchcapture.h"

#include <QByteArray>
#include <QFile>
#include <QVector>
#include <QtEndian>

#include <algorithm>

namespace dimscope::test {

namespace {

void appendEscaped(QByteArray &out, const QByteArray &text)
{
    out.reserve(out.size() + text.size() * 5 / 4);
    for (char c : text) {
        if (c == '"' || c == '\\')
            out.append('\\');
        out.append(c);
    }
}

QByteArray shapeText(const QVector<qint64> &shape)
{
    QByteArray t = "[";
    for (int i = 0; i < shape.size(); ++i)
        t += (i ? ", " : "") + QByteArray::number(shape[i]);
    return t + "]";
}

} // namespace

qint64 writeBenchCapture(const QString &path, const BenchCaptureShape &s)
{
    const int calls = s.calls, layers = s.layers;
    struct T {
        QByteArray name;
        const char *dtype;
        QVector<qint64> shape;
        qint64 bytes;
    };
    QVector<T> tensors;
    tensors.reserve(int(s.leafCount()));
    QByteArray manifest;
    manifest.reserve(calls * layers * 2 * 200);
    manifest += R"({"format": "dimscope.capture", "version": 1, "producer": "bench_capture_open", "torch_version": "2.6.0", )"
                R"("transformers_version": null, "model": {"class": "bench.LM", "signature": [)"
                R"({"name": "input_ids", "kind": "POSITIONAL_OR_KEYWORD", "has_default": false}, )"
                R"({"name": "attention_mask", "kind": "POSITIONAL_OR_KEYWORD", "has_default": true, "default": null}, )"
                R"({"name": "past_key_values", "kind": "POSITIONAL_OR_KEYWORD", "has_default": true, "default": null}]}, )"
                R"("flattening": {"transformers.cache_utils.DynamicCache": "key_value_dict"}, "value_if_missing": [], "calls": [)";
    auto leaf = [&](int call, const char *dtype, const QVector<qint64> &shape, qint64 elemSize, const QByteArray &leafPath) {
        const QByteArray name = "c" + QByteArray::number(call) + "/in/" + QByteArray::number(tensors.size() % (2 + 2 * layers));
        qint64 bytes = elemSize;
        for (qint64 d : shape)
            bytes *= d;
        tensors.append({name, dtype, shape, bytes});
        manifest += R"({"kind": "tensor", "tensor": ")" + name + R"(", "dtype": ")" + dtype + R"(", "shape": )" + shapeText(shape)
                  + R"(, "device": "cpu", "path": ")" + leafPath + "\"}";
    };
    for (int c = 0; c < calls; ++c) {
        // Call 0 is the prefill (16 tokens); then one token a call over a growing cache.
        const qint64 past = 16 + c, seq = c == 0 ? 16 : 1;
        manifest += (c ? ", " : "") + QByteArray(R"({"index": )") + QByteArray::number(c)
                  + R"(, "num_positional": 1, "inputs": {"kind": "dict", "keys": ["input_ids", "attention_mask", "past_key_values"], "children": [)";
        leaf(c, "I64", {2, seq}, 8, "input_ids");
        manifest += ", ";
        leaf(c, "I64", {2, past + seq}, 8, "attention_mask");
        manifest += R"(, {"kind": "custom", "type": "transformers.cache_utils.DynamicCache", "flavour": "key_value_dict", )"
                    R"("keys": ["key_cache", "value_cache"], "context": ["key_cache", "value_cache"], "children": [)";
        for (const char *kind : {"key_cache", "value_cache"}) {
            manifest += (kind[0] == 'v' ? ", " : "") + QByteArray(R"({"kind": "list", "children": [)");
            for (int l = 0; l < layers; ++l) {
                if (l)
                    manifest += ", ";
                leaf(c, "BF16", {2, s.heads, past, s.headDim}, 2, QByteArray("past_key_values.") + kind + "[" + QByteArray::number(l) + "]");
            }
            manifest += "]}";
        }
        manifest += R"(]}]}, "missing": [], "filled": [], "constant_kwargs": {"use_cache": true}, "outputs": null})";
    }
    manifest += "]}";

    QByteArray header = R"({"__metadata__": {"dimscope.manifest": ")";
    appendEscaped(header, manifest);
    manifest.clear();
    manifest.squeeze();
    header += "\"}";
    qint64 offset = 0, maxBytes = 0;
    for (const T &t : tensors) {
        header += ", \"" + t.name + R"(": {"dtype": ")" + t.dtype + R"(", "shape": )" + shapeText(t.shape)
                + R"(, "data_offsets": [)" + QByteArray::number(offset) + ", " + QByteArray::number(offset + t.bytes) + "]}";
        offset += t.bytes;
        maxBytes = std::max(maxBytes, t.bytes);
    }
    header += "}";
    while (header.size() % 8)
        header += ' ';

    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
        return -1;
    QByteArray length(8, '\0');
    qToLittleEndian<quint64>(quint64(header.size()), length.data());
    f.write(length);
    f.write(header);
    // Real bytes, a different pattern per tensor (not a sparse file).
    QByteArray buffer(int(maxBytes), Qt::Uninitialized);
    for (int i = 0; i < buffer.size(); ++i)
        buffer[i] = char(i * 131 + 7);
    for (int i = 0; i < tensors.size(); ++i) {
        if (tensors[i].bytes == 0)
            continue;
        buffer[0] = char(i);
        if (f.write(buffer.constData(), tensors[i].bytes) != tensors[i].bytes)
            return -1;
    }
    return f.error() == QFile::NoError ? tensors.size() : -1;
}

} // namespace dimscope::test
