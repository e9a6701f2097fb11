// SPDX-License-Identifier: GPL-3.0-or-later
// capture_readerdump FILE...: what the C++ capture reader (CaptureReader::open) reads
// from each file, one JSON line per file, for the differential test that holds the
// worker's Python reader to the same answers (tests/python/test_reader_agreement.py).
//
// {"ok": false, "error": "..."} for a refused file; otherwise the manifest's values as
// the reader holds them. Numbers are written as tagged strings, "i:<integer>" or
// "f:<double, 17 digits>" ("f:nan", "f:inf", "f:-inf"), so that the comparison sees
// exactly what the reader holds, not what a JSON writer rounds it to.
#include "capture/capturereader.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QVariant>

#include <cmath>
#include <cstdio>

using namespace dimscope;

namespace {

QJsonValue tagged(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Double: {
        if (v.toVariant().metaType().id() == QMetaType::LongLong)
            return QStringLiteral("i:%1").arg(v.toInteger());
        const double d = v.toDouble();
        if (std::isnan(d))
            return QStringLiteral("f:nan");
        if (std::isinf(d))
            return d > 0 ? QStringLiteral("f:inf") : QStringLiteral("f:-inf");
        return QStringLiteral("f:%1").arg(QString::number(d, 'g', 17));
    }
    case QJsonValue::String:
        return QString(QStringLiteral("s:") + v.toString());
    case QJsonValue::Array: {
        QJsonArray out;
        for (const QJsonValue &e : v.toArray())
            out.append(tagged(e));
        return out;
    }
    case QJsonValue::Object: {
        QJsonObject out;
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it)
            out.insert(it.key(), tagged(it.value()));
        return out;
    }
    default:
        return v; // null, bool
    }
}

QJsonArray leavesOf(const Capture &capture, const CallTree &tree)
{
    QJsonArray out;
    for (const Leaf &leaf : tree.leaves) {
        QJsonObject l{{QStringLiteral("path"), leaf.path}, {QStringLiteral("kind"), nodeKindName(leaf.kind)}};
        if (leaf.isTensor()) {
            QJsonArray shape;
            for (qint64 d : leaf.shape)
                shape.append(QStringLiteral("i:%1").arg(d));
            l.insert(QStringLiteral("tensor"), capture.tensorName(leaf));
            l.insert(QStringLiteral("dtype"), dtype::safetensorsName(leaf.dtype));
            l.insert(QStringLiteral("shape"), shape);
            l.insert(QStringLiteral("device"), leaf.device);
        } else if (leaf.kind != NodeKind::None) {
            l.insert(QStringLiteral("value"), tagged(leaf.value));
        }
        out.append(l);
    }
    return out;
}

QJsonObject dump(const Capture &c)
{
    QJsonArray signature;
    for (const Parameter &p : c.signature) {
        QJsonObject o{{QStringLiteral("name"), p.name}, {QStringLiteral("kind"), p.kind},
                      {QStringLiteral("has_default"), p.hasDefault}, {QStringLiteral("default"), tagged(p.defaultValue)}};
        signature.append(o);
    }
    QJsonObject flattening;
    for (auto it = c.flattening.begin(); it != c.flattening.end(); ++it)
        flattening.insert(it.key(), it.value());
    QJsonArray calls;
    for (const CapturedCall &call : c.calls) {
        calls.append(QJsonObject{
            {QStringLiteral("index"), QStringLiteral("i:%1").arg(call.index)},
            {QStringLiteral("num_positional"), QStringLiteral("i:%1").arg(call.numPositional)},
            {QStringLiteral("missing"), QJsonArray::fromStringList(call.missing)},
            {QStringLiteral("filled"), QJsonArray::fromStringList(call.filled)},
            {QStringLiteral("constant_kwargs"), tagged(call.constantKwargs)},
            {QStringLiteral("inputs"), leavesOf(c, call.inputs)},
            {QStringLiteral("outputs"), call.outputs.isEmpty() ? QJsonValue() : QJsonValue(leavesOf(c, call.outputs))},
        });
    }
    auto optional = [](const QString &s) { return s.isNull() ? QJsonValue() : QJsonValue(s); };
    return QJsonObject{
        {QStringLiteral("ok"), true},
        {QStringLiteral("version"), QStringLiteral("i:%1").arg(c.formatVersion)},
        {QStringLiteral("producer"), optional(c.producer)},
        {QStringLiteral("torch_version"), optional(c.torchVersion)},
        {QStringLiteral("transformers_version"), optional(c.transformersVersion)},
        {QStringLiteral("model_class"), c.modelClass},
        {QStringLiteral("signature"), signature},
        {QStringLiteral("flattening"), flattening},
        {QStringLiteral("value_if_missing"), QJsonArray::fromStringList(c.valueIfMissing)},
        {QStringLiteral("calls"), calls},
    };
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList paths = app.arguments().mid(1);
    for (const QString &path : paths) {
        QString error;
        const std::optional<Capture> capture = CaptureReader::open(path, &error);
        const QJsonObject line = capture ? dump(*capture) : QJsonObject{{QStringLiteral("ok"), false}, {QStringLiteral("error"), error}};
        const QByteArray text = QJsonDocument(line).toJson(QJsonDocument::Compact);
        std::fwrite(text.constData(), 1, size_t(text.size()), stdout);
        std::fputc('\n', stdout);
    }
    return 0;
}
