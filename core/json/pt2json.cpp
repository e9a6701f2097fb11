// SPDX-License-Identifier: GPL-3.0-or-later
#include "json/pt2json.h"

#include "pt2/pt2dimmapper.h"

#include <QJsonArray>

namespace dimscope {

namespace {

QJsonValue optionalInt(const std::optional<qint64> &v) { return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null); }

QJsonValue stringOrNull(const QString &s) { return s.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(s); }

QString inputKindName(Pt2UserInput::Kind k)
{
    switch (k) {
    case Pt2UserInput::Kind::Tensor: return QStringLiteral("tensor");
    case Pt2UserInput::Kind::SymInt: return QStringLiteral("symint");
    case Pt2UserInput::Kind::Constant: return QStringLiteral("constant");
    case Pt2UserInput::Kind::Other: return QStringLiteral("other");
    }
    return QString();
}

} // namespace

QJsonValue Pt2Json::sizeToJson(const SymSize &size)
{
    return size.isStatic ? QJsonValue(size.value) : QJsonValue(size.expr.toString());
}

QJsonObject Pt2Json::tensorToJson(const Pt2TensorMeta &t)
{
    QJsonArray sizes, hints;
    for (const SymSize &s : t.sizes) {
        sizes << sizeToJson(s);
        hints << (s.isStatic ? QJsonValue(s.value) : optionalInt(s.hint));
    }
    QJsonObject o{{QStringLiteral("dtype"), t.dtype}, {QStringLiteral("device"), stringOrNull(t.device)},
                  {QStringLiteral("sizes"), sizes}, {QStringLiteral("size_hints"), hints}};
    if (t.strides) {
        QJsonArray strides;
        for (const SymSize &s : *t.strides)
            strides << sizeToJson(s);
        o.insert(QStringLiteral("strides"), strides);
    } else {
        o.insert(QStringLiteral("strides"), QJsonValue(QJsonValue::Null));
    }
    return o;
}

QJsonObject Pt2Json::toJson(const Pt2Program &p)
{
    QJsonObject root;
    root.insert(QStringLiteral("file"), p.filePath);
    root.insert(QStringLiteral("layout"), p.layout == Pt2Layout::Legacy ? QStringLiteral("legacy") : QStringLiteral("archive"));
    root.insert(QStringLiteral("layout_description"), p.layoutName());
    root.insert(QStringLiteral("json_record"), p.jsonEntry);
    root.insert(QStringLiteral("archive_root"), stringOrNull(p.archiveRoot));
    root.insert(QStringLiteral("model"), stringOrNull(p.modelName));
    root.insert(QStringLiteral("models"), QJsonArray::fromStringList(p.modelNames));
    root.insert(QStringLiteral("archive_version"), stringOrNull(p.archiveVersion));
    root.insert(QStringLiteral("pt2_archive_version"), stringOrNull(p.pt2ArchiveVersion));
    root.insert(QStringLiteral("schema_version"),
                p.schemaMajor < 0 ? QJsonValue(QJsonValue::Null)
                                  : QJsonValue(QStringLiteral("%1.%2").arg(p.schemaMajor).arg(p.schemaMinor)));
    root.insert(QStringLiteral("torch_version"), stringOrNull(p.torchVersion));
    root.insert(QStringLiteral("forward_arg_names"), QJsonArray::fromStringList(p.forwardArgNames));

    QJsonArray inputs;
    for (const Pt2UserInput &in : p.inputs) {
        QJsonObject o{{QStringLiteral("name"), in.name}, {QStringLiteral("path"), stringOrNull(in.path)},
                      {QStringLiteral("kind"), inputKindName(in.kind)}, {QStringLiteral("arg_type"), in.argType}};
        if (in.kind == Pt2UserInput::Kind::Tensor) {
            const QJsonObject t = tensorToJson(in.tensor);
            for (auto it = t.constBegin(); it != t.constEnd(); ++it)
                o.insert(it.key(), it.value());
        } else if (in.kind == Pt2UserInput::Kind::SymInt) {
            o.insert(QStringLiteral("value"), in.symInt ? sizeToJson(*in.symInt) : QJsonValue(QJsonValue::Null));
        } else if (in.kind == Pt2UserInput::Kind::Constant) {
            o.insert(QStringLiteral("value"), in.constant);
        }
        inputs << o;
    }
    root.insert(QStringLiteral("inputs"), inputs);

    QJsonObject state{{QStringLiteral("parameter"), QJsonArray()}, {QStringLiteral("buffer"), QJsonArray()},
                      {QStringLiteral("tensor_constant"), QJsonArray()}, {QStringLiteral("custom_obj"), QJsonArray()},
                      {QStringLiteral("token"), QJsonArray()}};
    for (const Pt2StateInput &s : p.state) {
        QJsonObject o{{QStringLiteral("name"), s.name}, {QStringLiteral("target"), stringOrNull(s.target)}};
        if (s.kind == Pt2StateInput::Kind::Buffer)
            o.insert(QStringLiteral("persistent"), s.persistent);
        if (s.tensor) {
            const QJsonObject t = tensorToJson(*s.tensor);
            o.insert(QStringLiteral("dtype"), t.value(QStringLiteral("dtype")));
            o.insert(QStringLiteral("sizes"), t.value(QStringLiteral("sizes")));
        }
        const QString key = Pt2StateInput::kindName(s.kind);
        QJsonArray list = state.value(key).toArray();
        list << o;
        state.insert(key, list);
    }
    root.insert(QStringLiteral("parameters"), state.value(QStringLiteral("parameter")));
    root.insert(QStringLiteral("buffers"), state.value(QStringLiteral("buffer")));
    root.insert(QStringLiteral("tensor_constants"), state.value(QStringLiteral("tensor_constant")));
    root.insert(QStringLiteral("custom_objs"), state.value(QStringLiteral("custom_obj")));
    root.insert(QStringLiteral("tokens"), state.value(QStringLiteral("token")));

    QJsonArray outputs;
    for (const Pt2Output &out : p.outputs) {
        QJsonObject o{{QStringLiteral("kind"), out.kind}, {QStringLiteral("name"), stringOrNull(out.name)},
                      {QStringLiteral("target"), stringOrNull(out.target)}};
        if (out.tensor) {
            const QJsonObject t = tensorToJson(*out.tensor);
            o.insert(QStringLiteral("dtype"), t.value(QStringLiteral("dtype")));
            o.insert(QStringLiteral("sizes"), t.value(QStringLiteral("sizes")));
        } else if (!out.constant.isUndefined()) {
            o.insert(QStringLiteral("value"), out.constant);
        }
        outputs << o;
    }
    root.insert(QStringLiteral("outputs"), outputs);

    QJsonObject ranges;
    for (const Pt2Range &r : p.ranges)
        ranges.insert(r.key, QJsonObject{{QStringLiteral("min"), optionalInt(r.min)}, {QStringLiteral("max"), optionalInt(r.max)}});
    root.insert(QStringLiteral("range_constraints"), ranges);

    QJsonObject symbols;
    const auto uses = Pt2DimMapper::symbolUses(p);
    for (auto it = uses.cbegin(); it != uses.cend(); ++it) {
        QJsonArray list;
        for (const Pt2DimUse &u : it.value())
            list << QJsonObject{{QStringLiteral("input"), u.inputName}, {QStringLiteral("path"), stringOrNull(u.path)},
                                {QStringLiteral("dim"), u.dim}, {QStringLiteral("expr"), u.expr.toString()}};
        const auto range = p.rangeOf(SymExpr::symbol(it.key()));
        symbols.insert(it.key(), QJsonObject{{QStringLiteral("min"), range ? optionalInt(range->min) : QJsonValue(QJsonValue::Null)},
                                             {QStringLiteral("max"), range ? optionalInt(range->max) : QJsonValue(QJsonValue::Null)},
                                             {QStringLiteral("has_range"), bool(range)},
                                             {QStringLiteral("uses"), list}});
    }
    root.insert(QStringLiteral("symbols"), symbols);
    root.insert(QStringLiteral("warnings"), QJsonArray::fromStringList(p.warnings));
    return root;
}

} // namespace dimscope
