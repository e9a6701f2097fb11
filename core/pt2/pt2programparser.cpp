// SPDX-License-Identifier: GPL-3.0-or-later
#include "pt2/pt2programparser.h"

#include "json/jsoninteger.h"
#include "pt2/pt2interfacejson.h"
#include "pt2/pt2treespec.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <limits>

namespace dimscope {

namespace {

// Thrown inside this file only; parse() turns it into its error string.
struct ParseFailure {
    QString message;
};

[[noreturn]] void failAt(const QString &where, const QString &what)
{
    throw ParseFailure{where + QStringLiteral(": ") + what};
}

QString typeOf(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Null: return QStringLiteral("null");
    case QJsonValue::Bool: return QStringLiteral("a boolean");
    case QJsonValue::Double: return QStringLiteral("a number");
    case QJsonValue::String: return QStringLiteral("a string");
    case QJsonValue::Array: return QStringLiteral("a list");
    case QJsonValue::Object: return QStringLiteral("an object");
    case QJsonValue::Undefined: return QStringLiteral("nothing (missing)");
    }
    return QStringLiteral("something else");
}

QString keyPath(const QString &where, const QString &key) { return where.isEmpty() ? key : where + QLatin1Char('.') + key; }
QString indexPath(const QString &where, int i) { return QStringLiteral("%1[%2]").arg(where).arg(i); }
QString namePath(const QString &where, const QString &name) { return QStringLiteral("%1['%2']").arg(where, name); }

QJsonObject asObject(const QJsonValue &v, const QString &where)
{
    if (!v.isObject())
        failAt(where, QStringLiteral("expected an object, got %1").arg(typeOf(v)));
    return v.toObject();
}

QJsonArray asArray(const QJsonValue &v, const QString &where)
{
    if (!v.isArray())
        failAt(where, QStringLiteral("expected a list, got %1").arg(typeOf(v)));
    return v.toArray();
}

QString asString(const QJsonValue &v, const QString &where)
{
    if (!v.isString())
        failAt(where, QStringLiteral("expected a string, got %1").arg(typeOf(v)));
    return v.toString();
}

bool asBool(const QJsonValue &v, const QString &where)
{
    if (!v.isBool())
        failAt(where, QStringLiteral("expected true or false, got %1").arg(typeOf(v)));
    return v.toBool();
}

qint64 asInt(const QJsonValue &v, const QString &where)
{
    if (!v.isDouble())
        failAt(where, QStringLiteral("expected an integer, got %1").arg(typeOf(v)));
    if (const std::optional<qint64> i = exactInteger(v))
        return *i;
    const double d = v.toDouble();
    if (std::isfinite(d) && std::floor(d) == d) // 1e21: whole, but no 64-bit integer
        failAt(where, QStringLiteral("expected an integer, got %1, which does not fit in 64 bits").arg(d));
    failAt(where, QStringLiteral("expected an integer, got %1").arg(d));
}

// Small integers (dtype codes, versions): an int, never a truncated qint64.
int asInt32(const QJsonValue &v, const QString &where)
{
    const qint64 i = asInt(v, where);
    if (i < std::numeric_limits<int>::min() || i > std::numeric_limits<int>::max())
        failAt(where, QStringLiteral("%1 is out of range (at most %2)").arg(i).arg(std::numeric_limits<int>::max()));
    return int(i);
}

std::optional<qint64> asOptionalInt(const QJsonValue &v, const QString &where)
{
    if (v.isNull() || v.isUndefined())
        return std::nullopt;
    return asInt(v, where);
}

QJsonValue member(const QJsonObject &o, const char *key, const QString &where)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isUndefined())
        failAt(keyPath(where, QLatin1String(key)), QStringLiteral("missing"));
    return v;
}

// Unions are single-key objects {"tag": value}.
std::pair<QString, QJsonValue> unionOf(const QJsonValue &v, const QString &where, const QStringList &tags)
{
    const QJsonObject o = asObject(v, where);
    if (o.size() != 1)
        failAt(where, QStringLiteral("expected a union (an object with exactly one of %1), got %2 keys")
                          .arg(tags.join(QLatin1String(", "))).arg(o.size()));
    const QString tag = o.constBegin().key();
    if (!tags.isEmpty() && !tags.contains(tag))
        failAt(where, QStringLiteral("unknown union tag '%1' (expected one of %2)").arg(tag, tags.join(QLatin1String(", "))));
    return {tag, o.constBegin().value()};
}

QString dtypeName(int scalarType)
{
    switch (scalarType) {
    case 1: return QStringLiteral("uint8");
    case 2: return QStringLiteral("int8");
    case 3: return QStringLiteral("int16");
    case 4: return QStringLiteral("int32");
    case 5: return QStringLiteral("int64");
    case 6: return QStringLiteral("float16");
    case 7: return QStringLiteral("float32");
    case 8: return QStringLiteral("float64");
    case 9: return QStringLiteral("complex32");
    case 10: return QStringLiteral("complex64");
    case 11: return QStringLiteral("complex128");
    case 12: return QStringLiteral("bool");
    case 13: return QStringLiteral("bfloat16");
    case 28: return QStringLiteral("uint16");
    default: return QStringLiteral("scalar_type_%1").arg(scalarType);
    }
}

class Parser
{
public:
    explicit Parser(Pt2Program *program) : m_p(program) {}

    void run(const QJsonObject &root)
    {
        const QJsonObject gm = asObject(member(root, "graph_module", QString()), QStringLiteral("graph_module"));
        const QString gmWhere = QStringLiteral("graph_module");
        const QJsonObject graph = asObject(member(gm, "graph", gmWhere), keyPath(gmWhere, QStringLiteral("graph")));
        const QString graphWhere = keyPath(gmWhere, QStringLiteral("graph"));
        m_tensorValuesWhere = keyPath(graphWhere, QStringLiteral("tensor_values"));
        m_tensorValues = asObject(member(graph, "tensor_values", graphWhere), m_tensorValuesWhere);
        const QJsonValue symInts = graph.value(QLatin1String("sym_int_values"));
        if (!symInts.isUndefined() && !symInts.isNull())
            m_symIntValues = asObject(symInts, keyPath(graphWhere, QStringLiteral("sym_int_values")));

        readVersions(root);
        const QString sigWhere = keyPath(gmWhere, QStringLiteral("signature"));
        const QJsonObject sig = asObject(member(gm, "signature", gmWhere), sigWhere);
        readInputSpecs(asArray(member(sig, "input_specs", sigWhere), keyPath(sigWhere, QStringLiteral("input_specs"))),
                       keyPath(sigWhere, QStringLiteral("input_specs")));
        readOutputSpecs(asArray(member(sig, "output_specs", sigWhere), keyPath(sigWhere, QStringLiteral("output_specs"))),
                        keyPath(sigWhere, QStringLiteral("output_specs")));
        readRanges(asObject(member(root, "range_constraints", QString()), QStringLiteral("range_constraints")));
        const QJsonValue mcg = gm.value(QLatin1String("module_call_graph"));
        if (!mcg.isUndefined() && !mcg.isNull())
            readCallGraph(asArray(mcg, keyPath(gmWhere, QStringLiteral("module_call_graph"))),
                          keyPath(gmWhere, QStringLiteral("module_call_graph")));
    }

private:
    void readVersions(const QJsonObject &root)
    {
        const QJsonValue sv = root.value(QLatin1String("schema_version"));
        if (!sv.isUndefined() && !sv.isNull()) {
            const QJsonObject o = asObject(sv, QStringLiteral("schema_version"));
            m_p->schemaMajor = asInt32(member(o, "major", QStringLiteral("schema_version")), QStringLiteral("schema_version.major"));
            m_p->schemaMinor = asInt32(member(o, "minor", QStringLiteral("schema_version")), QStringLiteral("schema_version.minor"));
        }
        const QJsonValue tv = root.value(QLatin1String("torch_version"));
        if (!tv.isUndefined() && !tv.isNull())
            m_p->torchVersion = asString(tv, QStringLiteral("torch_version"));
        const QJsonValue ov = root.value(QLatin1String("opset_version"));
        if (!ov.isUndefined() && !ov.isNull()) {
            const QJsonObject o = asObject(ov, QStringLiteral("opset_version"));
            for (auto it = o.constBegin(); it != o.constEnd(); ++it)
                m_p->opsetVersion.insert(it.key(), asInt32(it.value(), namePath(QStringLiteral("opset_version"), it.key())));
        }
    }

    SymSize readSymInt(const QJsonValue &v, const QString &where)
    {
        const auto [tag, value] = unionOf(v, where, {QStringLiteral("as_int"), QStringLiteral("as_expr")});
        if (tag == QLatin1String("as_int"))
            return SymSize::fromInt(asInt(value, keyPath(where, tag)));
        const QString exprWhere = keyPath(where, tag);
        const QJsonObject e = asObject(value, exprWhere);
        const QString text = asString(member(e, "expr_str", exprWhere), keyPath(exprWhere, QStringLiteral("expr_str")));
        std::optional<qint64> hint;
        const QJsonValue h = e.value(QLatin1String("hint"));
        if (!h.isUndefined() && !h.isNull()) {
            const QString hintWhere = keyPath(exprWhere, QStringLiteral("hint"));
            const auto [htag, hvalue] = unionOf(h, hintWhere, {QStringLiteral("as_int"), QStringLiteral("as_bool"), QStringLiteral("as_float")});
            if (htag == QLatin1String("as_int"))
                hint = asInt(hvalue, keyPath(hintWhere, htag));
        }
        const SymExpr expr = SymExpr::parse(text);
        if (!expr.isSupported())
            m_p->warnings << QStringLiteral("%1: expression '%2' kept as text: %3").arg(where, text, expr.problem());
        return SymSize::fromExpr(expr, hint);
    }

    QVector<SymSize> readSymInts(const QJsonValue &v, const QString &where)
    {
        const QJsonArray a = asArray(v, where);
        QVector<SymSize> out;
        out.reserve(a.size());
        for (int i = 0; i < a.size(); ++i)
            out << readSymInt(a.at(i), indexPath(where, i));
        return out;
    }

    Pt2TensorMeta readTensorMeta(const QJsonValue &v, const QString &where)
    {
        const QJsonObject o = asObject(v, where);
        Pt2TensorMeta t;
        t.scalarType = asInt32(member(o, "dtype", where), keyPath(where, QStringLiteral("dtype")));
        t.dtype = dtypeName(t.scalarType);
        t.sizes = readSymInts(member(o, "sizes", where), keyPath(where, QStringLiteral("sizes")));
        const QJsonValue strides = o.value(QLatin1String("strides"));
        if (!strides.isUndefined() && !strides.isNull())
            t.strides = readSymInts(strides, keyPath(where, QStringLiteral("strides")));
        const QJsonValue rg = o.value(QLatin1String("requires_grad"));
        if (!rg.isUndefined() && !rg.isNull())
            t.requiresGrad = asBool(rg, keyPath(where, QStringLiteral("requires_grad")));
        const QJsonValue dev = o.value(QLatin1String("device"));
        if (!dev.isUndefined() && !dev.isNull()) {
            const QString devWhere = keyPath(where, QStringLiteral("device"));
            const QJsonObject d = asObject(dev, devWhere);
            t.device = asString(member(d, "type", devWhere), keyPath(devWhere, QStringLiteral("type")));
            const auto index = asOptionalInt(d.value(QLatin1String("index")), keyPath(devWhere, QStringLiteral("index")));
            if (index)
                t.device += QLatin1Char(':') + QString::number(*index);
        }
        return t;
    }

    std::optional<Pt2TensorMeta> tensorMeta(const QString &name, bool required, const QString &who)
    {
        const QJsonValue v = m_tensorValues.value(name);
        if (v.isUndefined()) {
            if (required)
                failAt(who, QStringLiteral("tensor '%1' has no entry in %2").arg(name, m_tensorValuesWhere));
            return std::nullopt;
        }
        return readTensorMeta(v, namePath(m_tensorValuesWhere, name));
    }

    QString tensorArgName(const QJsonValue &v, const QString &where)
    {
        const QJsonObject o = asObject(v, where);
        return asString(member(o, "name", where), keyPath(where, QStringLiteral("name")));
    }

    // ConstantValue / scalar Argument members -> JSON value.
    QJsonValue constantOf(const QString &tag, const QJsonValue &value, const QString &where)
    {
        if (tag == QLatin1String("as_none"))
            return QJsonValue(QJsonValue::Null);
        if (tag == QLatin1String("as_int"))
            return QJsonValue(asInt(value, where));
        if (tag == QLatin1String("as_bool"))
            return QJsonValue(asBool(value, where));
        if (tag == QLatin1String("as_string"))
            return QJsonValue(asString(value, where));
        if (tag == QLatin1String("as_float")) {
            if (!value.isDouble() && !value.isString()) // newer torch writes "Infinity"/"NaN" as strings
                failAt(where, QStringLiteral("expected a number, got %1").arg(typeOf(value)));
            return value;
        }
        return value;
    }

    void readInputSpecs(const QJsonArray &specs, const QString &where)
    {
        static const QStringList tags{QStringLiteral("user_input"), QStringLiteral("parameter"), QStringLiteral("buffer"),
                                      QStringLiteral("tensor_constant"), QStringLiteral("custom_obj"),
                                      QStringLiteral("token"), QStringLiteral("constant_input")};
        for (int i = 0; i < specs.size(); ++i) {
            const QString at = indexPath(where, i);
            const auto [tag, value] = unionOf(specs.at(i), at, tags);
            const QString w = keyPath(at, tag);
            const QJsonObject o = asObject(value, w);
            if (tag == QLatin1String("user_input")) {
                m_p->inputs << readUserInput(member(o, "arg", w), keyPath(w, QStringLiteral("arg")));
            } else if (tag == QLatin1String("constant_input")) {
                Pt2UserInput in;
                in.kind = Pt2UserInput::Kind::Constant;
                in.name = asString(member(o, "name", w), keyPath(w, QStringLiteral("name")));
                const QString vw = keyPath(w, QStringLiteral("value"));
                const auto [ctag, cvalue] = unionOf(member(o, "value", w), vw,
                    {QStringLiteral("as_none"), QStringLiteral("as_int"), QStringLiteral("as_float"), QStringLiteral("as_string"), QStringLiteral("as_bool")});
                in.argType = ctag;
                in.constant = constantOf(ctag, cvalue, keyPath(vw, ctag));
                m_p->inputs << in;
            } else {
                m_p->state << readStateInput(tag, o, w);
            }
        }
    }

    Pt2UserInput readUserInput(const QJsonValue &arg, const QString &where)
    {
        const auto [tag, value] = unionOf(arg, where, {});
        Pt2UserInput in;
        in.argType = tag;
        const QString w = keyPath(where, tag);
        if (tag == QLatin1String("as_tensor")) {
            in.kind = Pt2UserInput::Kind::Tensor;
            in.name = tensorArgName(value, w);
            in.tensor = *tensorMeta(in.name, true, w);
        } else if (tag == QLatin1String("as_sym_int")) {
            in.kind = Pt2UserInput::Kind::SymInt;
            const auto [stag, svalue] = unionOf(value, w, {QStringLiteral("as_name"), QStringLiteral("as_int")});
            if (stag == QLatin1String("as_name")) {
                in.name = asString(svalue, keyPath(w, stag));
                const QJsonValue sv = m_symIntValues.value(in.name);
                if (!sv.isUndefined())
                    in.symInt = readSymInt(sv, QStringLiteral("graph_module.graph.sym_int_values['%1']").arg(in.name));
            } else {
                in.symInt = SymSize::fromInt(asInt(svalue, keyPath(w, stag)));
            }
        } else if (tag == QLatin1String("as_none") || tag == QLatin1String("as_int") || tag == QLatin1String("as_bool")
                   || tag == QLatin1String("as_string") || tag == QLatin1String("as_float")) {
            in.kind = Pt2UserInput::Kind::Constant;
            in.constant = constantOf(tag, value, w);
        } else {
            in.kind = Pt2UserInput::Kind::Other;
            if (value.isObject() && value.toObject().value(QLatin1String("name")).isString())
                in.name = value.toObject().value(QLatin1String("name")).toString();
        }
        return in;
    }

    Pt2StateInput readStateInput(const QString &tag, const QJsonObject &o, const QString &w)
    {
        Pt2StateInput s;
        const QString argWhere = keyPath(w, QStringLiteral("arg"));
        s.name = tensorArgName(member(o, "arg", w), argWhere);
        if (tag == QLatin1String("parameter")) {
            s.kind = Pt2StateInput::Kind::Parameter;
            s.target = asString(member(o, "parameter_name", w), keyPath(w, QStringLiteral("parameter_name")));
        } else if (tag == QLatin1String("buffer")) {
            s.kind = Pt2StateInput::Kind::Buffer;
            s.target = asString(member(o, "buffer_name", w), keyPath(w, QStringLiteral("buffer_name")));
            const QJsonValue p = o.value(QLatin1String("persistent"));
            if (!p.isUndefined() && !p.isNull())
                s.persistent = asBool(p, keyPath(w, QStringLiteral("persistent")));
        } else if (tag == QLatin1String("tensor_constant")) {
            s.kind = Pt2StateInput::Kind::TensorConstant;
            s.target = asString(member(o, "tensor_constant_name", w), keyPath(w, QStringLiteral("tensor_constant_name")));
        } else if (tag == QLatin1String("custom_obj")) {
            s.kind = Pt2StateInput::Kind::CustomObj;
            s.target = asString(member(o, "custom_obj_name", w), keyPath(w, QStringLiteral("custom_obj_name")));
        } else {
            s.kind = Pt2StateInput::Kind::Token;
        }
        if (s.kind != Pt2StateInput::Kind::CustomObj && s.kind != Pt2StateInput::Kind::Token)
            s.tensor = tensorMeta(s.name, false, argWhere);
        return s;
    }

    void readOutputSpecs(const QJsonArray &specs, const QString &where)
    {
        for (int i = 0; i < specs.size(); ++i) {
            const QString at = indexPath(where, i);
            const auto [tag, value] = unionOf(specs.at(i), at, {});
            const QString w = keyPath(at, tag);
            const QJsonObject o = asObject(value, w);
            Pt2Output out;
            out.kind = tag;
            const QString argWhere = keyPath(w, QStringLiteral("arg"));
            if (tag == QLatin1String("user_output")) {
                const auto [atag, avalue] = unionOf(member(o, "arg", w), argWhere, {});
                if (atag == QLatin1String("as_tensor")) {
                    out.name = tensorArgName(avalue, keyPath(argWhere, atag));
                    out.tensor = tensorMeta(out.name, false, argWhere);
                } else if (atag == QLatin1String("as_sym_int") && avalue.isObject()
                           && avalue.toObject().value(QLatin1String("as_name")).isString()) {
                    out.name = avalue.toObject().value(QLatin1String("as_name")).toString();
                } else {
                    out.constant = constantOf(atag, avalue, keyPath(argWhere, atag));
                }
            } else if (tag == QLatin1String("loss_output") || tag == QLatin1String("token")
                       || tag == QLatin1String("buffer_mutation") || tag == QLatin1String("parameter_mutation")
                       || tag == QLatin1String("gradient_to_parameter") || tag == QLatin1String("gradient_to_user_input")
                       || tag == QLatin1String("user_input_mutation")) {
                out.name = tensorArgName(member(o, "arg", w), argWhere);
                out.tensor = tensorMeta(out.name, false, argWhere);
                for (const char *k : {"buffer_name", "parameter_name", "user_input_name"}) {
                    const QJsonValue t = o.value(QLatin1String(k));
                    if (!t.isUndefined())
                        out.target = asString(t, keyPath(w, QLatin1String(k)));
                }
            } else {
                // A kind newer than this reader: keep it visible, do not fail.
                m_p->warnings << QStringLiteral("%1: unknown output kind '%2'").arg(at, tag);
            }
            m_p->outputs << out;
        }
    }

    void readRanges(const QJsonObject &ranges)
    {
        for (auto it = ranges.constBegin(); it != ranges.constEnd(); ++it) {
            const QString w = namePath(QStringLiteral("range_constraints"), it.key());
            const QJsonObject o = asObject(it.value(), w);
            Pt2Range r;
            r.key = it.key();
            r.expr = SymExpr::parse(it.key());
            if (!r.expr.isSupported())
                m_p->warnings << QStringLiteral("%1: key kept as text: %2").arg(w, r.expr.problem());
            r.min = asOptionalInt(o.value(QLatin1String("min_val")), keyPath(w, QStringLiteral("min_val")));
            r.max = asOptionalInt(o.value(QLatin1String("max_val")), keyPath(w, QStringLiteral("max_val")));
            m_p->ranges << r;
        }
        // QJsonObject sorts keys as text (s11 before s3); show them as torch numbers them.
        std::stable_sort(m_p->ranges.begin(), m_p->ranges.end(),
                         [](const Pt2Range &a, const Pt2Range &b) { return symbolNameLess(a.key, b.key); });
    }

    void readCallGraph(const QJsonArray &entries, const QString &where)
    {
        for (int i = 0; i < entries.size(); ++i) {
            const QString at = indexPath(where, i);
            const QJsonObject e = asObject(entries.at(i), at);
            const QJsonValue fqn = e.value(QLatin1String("fqn"));
            if (!fqn.isUndefined() && asString(fqn, keyPath(at, QStringLiteral("fqn"))) != QString())
                continue; // submodule entries; the root call is fqn ""
            const QJsonValue sigValue = e.value(QLatin1String("signature"));
            if (sigValue.isUndefined() || sigValue.isNull())
                return;
            const QString sw = keyPath(at, QStringLiteral("signature"));
            const QJsonObject sig = asObject(sigValue, sw);
            m_p->inSpec = asString(member(sig, "in_spec", sw), keyPath(sw, QStringLiteral("in_spec")));
            const QJsonValue outSpec = sig.value(QLatin1String("out_spec"));
            if (!outSpec.isUndefined() && !outSpec.isNull())
                m_p->outSpec = asString(outSpec, keyPath(sw, QStringLiteral("out_spec")));
            const QJsonValue names = sig.value(QLatin1String("forward_arg_names"));
            if (!names.isUndefined() && !names.isNull()) {
                const QString nw = keyPath(sw, QStringLiteral("forward_arg_names"));
                const QJsonArray a = asArray(names, nw);
                for (int k = 0; k < a.size(); ++k)
                    m_p->forwardArgNames << asString(a.at(k), indexPath(nw, k));
            }
            assignPaths();
            return;
        }
    }

    // in_spec leaves and user inputs are both in flattening order, one to one.
    void assignPaths()
    {
        QString why;
        const auto paths = Pt2TreeSpec::leafPaths(m_p->inSpec, m_p->forwardArgNames, &why);
        if (!paths) {
            m_p->warnings << QStringLiteral("in_spec: %1; inputs have no key paths").arg(why);
            return;
        }
        if (paths->size() != m_p->inputs.size()) {
            m_p->warnings << QStringLiteral("in_spec has %1 leaves for %2 user inputs; inputs have no key paths")
                                 .arg(paths->size()).arg(m_p->inputs.size());
            return;
        }
        for (int i = 0; i < paths->size(); ++i)
            m_p->inputs[i].path = paths->at(i);
    }

    Pt2Program *m_p;
    QJsonObject m_tensorValues;
    QString m_tensorValuesWhere;
    QJsonObject m_symIntValues;
};

} // namespace

bool Pt2ProgramParser::parse(const QByteArray &json, Pt2Program *program, QString *error, qint64 maxInterfaceBytes,
                             qint64 maxInterfaceElements)
{
    Pt2InterfaceJson::OffsetMap offsets;
    const std::optional<QByteArray> interface =
        Pt2InterfaceJson::extract(json, {maxInterfaceBytes, maxInterfaceElements}, error, &offsets);
    if (!interface)
        return false;
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(*interface, &pe);
    if (pe.error != QJsonParseError::NoError) {
        *error = QStringLiteral("bad JSON at byte %1: %2").arg(offsets.toRecord(pe.offset)).arg(pe.errorString());
        return false;
    }
    if (!doc.isObject()) {
        *error = QStringLiteral("the top level is not a JSON object");
        return false;
    }
    try {
        Parser(program).run(doc.object());
    } catch (const ParseFailure &f) {
        *error = f.message;
        return false;
    }
    return true;
}

} // namespace dimscope
