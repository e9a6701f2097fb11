#include "capture/manifestparser.h"

#include "capture/internpool.h"
#include "capture/jsoncursor.h"
#include "capture/safetensorsheader.h"

#include <QJsonArray>
#include <QVarLengthArray>

#include <cmath>

namespace dimscope {

namespace {
constexpr int kMaxTreeDepth = 128;

std::optional<NodeKind> nodeKindFromName(std::string_view k)
{
    static const struct { const char *name; NodeKind kind; } kKinds[] = {
        {"dict", NodeKind::Dict}, {"list", NodeKind::List}, {"tuple", NodeKind::Tuple},
        {"namedtuple", NodeKind::NamedTuple}, {"custom", NodeKind::Custom}, {"tensor", NodeKind::Tensor},
        {"none", NodeKind::None}, {"int", NodeKind::Int}, {"float", NodeKind::Float},
        {"bool", NodeKind::Bool}, {"str", NodeKind::String},
    };
    for (const auto &e : kKinds) {
        if (k == e.name)
            return e.kind;
    }
    return std::nullopt;
}

QString shapeText(const QVector<qint64> &shape)
{
    QStringList parts;
    for (qint64 d : shape)
        parts << QString::number(d);
    return QLatin1Char('[') + parts.join(QLatin1String(", ")) + QLatin1Char(']');
}

// The key path segment of child i of a container (docs/capture-format.md, "Nodes").
QString childPath(const QString &prefix, NodeKind kind, const QStringList &keys, int i, bool topLevel)
{
    switch (kind) {
    case NodeKind::Dict:
        if (i >= keys.size())
            break;
        return topLevel ? keys.at(i) : prefix + QLatin1String("['") + keys.at(i) + QLatin1String("']");
    case NodeKind::NamedTuple:
    case NodeKind::Custom:
        if (i >= keys.size())
            break;
        return prefix + QLatin1Char('.') + keys.at(i);
    default:
        break;
    }
    return prefix + QLatin1Char('[') + QString::number(i) + QLatin1Char(']');
}

const QStringList kParameterKinds = {
    QStringLiteral("POSITIONAL_ONLY"), QStringLiteral("POSITIONAL_OR_KEYWORD"), QStringLiteral("VAR_POSITIONAL"),
    QStringLiteral("KEYWORD_ONLY"), QStringLiteral("VAR_KEYWORD"),
};
} // namespace

// What one node object said, collected in any member order and checked at its '}'.
struct NodeFields {
    std::optional<NodeKind> kind;
    bool hasKeys = false, hasFields = false, hasChildren = false, hasValue = false, hasType = false;
    bool hasFlavour = false, hasDtype = false, hasShape = false, hasPath = false;
    QStringList keys;
    QStringList fields;
    QString type, flavour, device, path;
    QJsonValue context, value;
    std::string tensor, dtypeName;
    bool hasTensor = false;
    QVarLengthArray<qint64, 8> shape; // no allocation for the usual ranks
    QVector<int> children;
};

// The key path of a node, when its ancestors' kinds and keys are known at this point.
std::optional<QString> ManifestParser::pathOf(const NodeLoc &loc) const
{
    if (!loc.parent)
        return m_treeName == QLatin1String("outputs") ? QStringLiteral("output") : QString();
    const std::optional<QString> parentPath = pathOf(*loc.parent);
    const NodeFields &pf = *loc.parentFields;
    if (!parentPath || !pf.kind)
        return std::nullopt;
    const QStringList &names = *pf.kind == NodeKind::NamedTuple ? pf.fields : pf.keys;
    const bool keyed = *pf.kind == NodeKind::Dict || *pf.kind == NodeKind::NamedTuple || *pf.kind == NodeKind::Custom;
    if (keyed && loc.index >= names.size())
        return std::nullopt;
    const bool topLevel = !loc.parent->parent && m_treeName == QLatin1String("inputs");
    return childPath(*parentPath, *pf.kind, names, loc.index, topLevel);
}

// "call 1, inputs" for a root; "call 1, node past_key_values.key_cache" below it when
// the key path is known (the parent's kind and keys came before its children, the
// usual member order); else "call 1, inputs child 2".
QString ManifestParser::describe(const NodeLoc &loc) const
{
    if (!loc.parent)
        return QStringLiteral("%1, %2").arg(m_callWhere, m_treeName);
    if (const std::optional<QString> path = pathOf(loc))
        return QStringLiteral("%1, node %2").arg(m_callWhere, *path);
    return QStringLiteral("%1 child %2").arg(describe(*loc.parent)).arg(loc.index);
}

ManifestParser::ManifestParser(const SafetensorsHeader &header, qint64 dataStart, InternPool &pool)
    : m_header(header), m_dataStart(dataStart), m_pool(pool)
{
}

bool ManifestParser::fail(const QString &message)
{
    if (m_error.isEmpty())
        m_error = message;
    return false;
}

bool ManifestParser::jsonFailed(JsonCursor &c)
{
    return fail(QStringLiteral("manifest is not valid JSON: %1").arg(c.error()));
}

bool ManifestParser::typeError(JsonCursor &c, const QString &what, const char *expected)
{
    const JsonCursor::Type t = c.peekType();
    if (t == JsonCursor::Type::Invalid) {
        c.skipValue();
        return jsonFailed(c);
    }
    return fail(QStringLiteral("%1 must be %2, not %3").arg(what, QLatin1String(expected), QLatin1String(JsonCursor::typeName(t))));
}

bool ManifestParser::readStringList(JsonCursor &c, QStringList &out, const QString &what)
{
    if (c.peekType() != JsonCursor::Type::Array)
        return typeError(c, what, "a list of strings");
    c.beginArray();
    bool first = true;
    std::string storage;
    std::string_view s;
    while (c.nextElement(first)) {
        if (c.peekType() != JsonCursor::Type::String)
            return typeError(c, what, "a list of strings");
        if (!c.readString(s, storage))
            return jsonFailed(c);
        out.append(m_pool.string(s));
    }
    return c.ok() || jsonFailed(c);
}

bool ManifestParser::readOptionalString(JsonCursor &c, QString &out, const QString &what)
{
    if (c.peekType() == JsonCursor::Type::Null)
        return c.readNull();
    if (c.peekType() != JsonCursor::Type::String)
        return typeError(c, what, "a string or null");
    return c.readString(out) || jsonFailed(c);
}

bool ManifestParser::parse(std::string_view manifest, Capture &out, QString *error)
{
    JsonCursor c(manifest.data(), manifest.data() + manifest.size());
    c.setAllowNonFinite(true);
    const JsonCursor::Type top = c.peekType();
    bool ok = false;
    if (top == JsonCursor::Type::Invalid) {
        c.skipValue();
        jsonFailed(c);
    } else if (top != JsonCursor::Type::Object) {
        fail(QStringLiteral("manifest is not a JSON object (found %1)").arg(QLatin1String(JsonCursor::typeName(top))));
    } else {
        const char *callsAt = nullptr;
        ok = parseTopLevel(c, out, callsAt);
        if (ok && !c.atEnd()) {
            c.fail(QStringLiteral("unexpected data after the manifest object"));
            ok = jsonFailed(c);
        }
        if (ok) {
            if (out.formatVersion != kSupportedVersion) {
                ok = fail(QStringLiteral("capture format version %1 is not supported (this dimscope reads version %2)")
                              .arg(out.formatVersion).arg(kSupportedVersion));
            } else if (!callsAt) {
                ok = fail(QStringLiteral("manifest has no 'calls'"));
            } else if (!m_callsRead) {
                // The calls are read once the format and version are known to be right.
                c.seek(callsAt);
                ok = parseCalls(c, out);
            }
        }
    }
    if (!ok)
        *error = m_error;
    return ok;
}

bool ManifestParser::parseTopLevel(JsonCursor &c, Capture &out, const char *&callsAt)
{
    c.beginObject();
    bool first = true, hasFormat = false, hasVersion = false, hasModel = false;
    std::string_view key;
    std::string keyStorage;
    while (c.nextMember(first, key, keyStorage)) {
        if (key == "format") {
            QString format;
            if (c.peekType() != JsonCursor::Type::String)
                return typeError(c, QStringLiteral("manifest 'format'"), "a string");
            if (!c.readString(format))
                return jsonFailed(c);
            if (format != QLatin1String("dimscope.capture"))
                return fail(QStringLiteral("manifest format is '%1', expected 'dimscope.capture'").arg(format));
            hasFormat = true;
        } else if (key == "version") {
            qint64 v;
            if (c.peekType() != JsonCursor::Type::Number || !c.readInt64(v))
                return typeError(c, QStringLiteral("manifest 'version'"), "an integer");
            out.formatVersion = int(qBound<qint64>(-1, v, qint64(1) << 30));
            hasVersion = true;
        } else if (key == "producer") {
            if (!readOptionalString(c, out.producer, QStringLiteral("manifest 'producer'")))
                return false;
        } else if (key == "torch_version") {
            if (!readOptionalString(c, out.torchVersion, QStringLiteral("manifest 'torch_version'")))
                return false;
        } else if (key == "transformers_version") {
            if (!readOptionalString(c, out.transformersVersion, QStringLiteral("manifest 'transformers_version'")))
                return false;
        } else if (key == "model") {
            if (!parseModel(c, out))
                return false;
            hasModel = true;
        } else if (key == "flattening") {
            if (c.peekType() != JsonCursor::Type::Object)
                return typeError(c, QStringLiteral("manifest 'flattening'"), "an object of strings");
            c.beginObject();
            bool f = true;
            std::string_view k;
            std::string ks;
            while (c.nextMember(f, k, ks)) {
                const QString cls = QString::fromUtf8(k.data(), qsizetype(k.size()));
                QString flavour;
                if (c.peekType() != JsonCursor::Type::String)
                    return typeError(c, QStringLiteral("manifest 'flattening'"), "an object of strings");
                if (!c.readString(flavour))
                    return jsonFailed(c);
                out.flattening.insert(cls, flavour);
            }
        } else if (key == "value_if_missing") {
            if (c.peekType() == JsonCursor::Type::Null) {
                c.readNull();
            } else if (!readStringList(c, out.valueIfMissing, QStringLiteral("manifest 'value_if_missing'"))) {
                return false;
            }
        } else if (key == "calls") {
            if (c.peekType() != JsonCursor::Type::Array)
                return typeError(c, QStringLiteral("manifest 'calls'"), "a list");
            callsAt = c.rawPosition();
            if (hasFormat && hasVersion && out.formatVersion == kSupportedVersion) {
                // Usual order (format and version first): read the calls right away.
                if (!parseCalls(c, out))
                    return false;
                m_callsRead = true;
            } else if (!c.skipValue()) {
                return jsonFailed(c);
            }
        } else if (!c.skipValue()) { // unknown members: ignored (newer writers may add some)
            return jsonFailed(c);
        }
        if (!c.ok())
            return jsonFailed(c);
    }
    if (!c.ok())
        return jsonFailed(c);
    if (!hasFormat)
        return fail(QStringLiteral("manifest has no 'format' (expected 'dimscope.capture')"));
    if (!hasVersion)
        return fail(QStringLiteral("manifest has no 'version'"));
    if (!hasModel)
        return fail(QStringLiteral("manifest has no 'model'"));
    return true;
}

bool ManifestParser::parseModel(JsonCursor &c, Capture &out)
{
    if (c.peekType() != JsonCursor::Type::Object)
        return typeError(c, QStringLiteral("manifest 'model'"), "an object");
    c.beginObject();
    bool first = true, hasClass = false;
    std::string_view key;
    std::string keyStorage;
    while (c.nextMember(first, key, keyStorage)) {
        if (key == "class") {
            if (c.peekType() != JsonCursor::Type::String)
                return typeError(c, QStringLiteral("model 'class'"), "a string");
            if (!c.readString(out.modelClass))
                return jsonFailed(c);
            hasClass = true;
        } else if (key == "signature") {
            if (c.peekType() != JsonCursor::Type::Array)
                return typeError(c, QStringLiteral("model 'signature'"), "a list");
            c.beginArray();
            bool f = true;
            while (c.nextElement(f)) {
                const QString where = QStringLiteral("model signature parameter %1").arg(out.signature.size());
                if (c.peekType() != JsonCursor::Type::Object)
                    return typeError(c, where, "an object");
                Parameter p;
                bool hasName = false;
                c.beginObject();
                bool pf = true;
                std::string_view pk;
                std::string pks;
                while (c.nextMember(pf, pk, pks)) {
                    if (pk == "name") {
                        if (c.peekType() != JsonCursor::Type::String)
                            return typeError(c, where + QLatin1String(" 'name'"), "a string");
                        c.readString(p.name);
                        hasName = true;
                    } else if (pk == "kind") {
                        if (c.peekType() != JsonCursor::Type::String)
                            return typeError(c, where + QLatin1String(" 'kind'"), "a string");
                        c.readString(p.kind);
                        if (!kParameterKinds.contains(p.kind))
                            return fail(QStringLiteral("%1: unknown parameter kind '%2'").arg(where, p.kind));
                    } else if (pk == "has_default") {
                        if (c.peekType() != JsonCursor::Type::Bool)
                            return typeError(c, where + QLatin1String(" 'has_default'"), "a boolean");
                        c.readBool(p.hasDefault);
                    } else if (pk == "default") {
                        c.readValue(p.defaultValue);
                    } else if (pk == "default_repr") {
                        if (!readOptionalString(c, p.defaultRepr, where + QLatin1String(" 'default_repr'")))
                            return false;
                    } else {
                        c.skipValue();
                    }
                    if (!c.ok())
                        return jsonFailed(c);
                }
                if (!c.ok())
                    return jsonFailed(c);
                if (!hasName)
                    return fail(QStringLiteral("%1 has no 'name'").arg(where));
                out.signature.append(p);
            }
        } else {
            c.skipValue();
        }
        if (!c.ok())
            return jsonFailed(c);
    }
    if (!c.ok())
        return jsonFailed(c);
    if (!hasClass)
        return fail(QStringLiteral("manifest 'model' has no 'class'"));
    return true;
}

bool ManifestParser::parseCalls(JsonCursor &c, Capture &out)
{
    c.beginArray();
    bool first = true;
    while (c.nextElement(first)) {
        CapturedCall call;
        if (!parseCall(c, out.calls.size(), call))
            return false;
        out.calls.append(std::move(call));
        if (m_consumed)
            m_consumed(c.rawPosition());
    }
    if (!c.ok())
        return jsonFailed(c);
    if (out.calls.isEmpty())
        return fail(QStringLiteral("manifest 'calls' is empty: a capture holds at least one call"));
    return true;
}

bool ManifestParser::parseCall(JsonCursor &c, int index, CapturedCall &call)
{
    m_callWhere = QStringLiteral("call %1").arg(index);
    const QString &where = m_callWhere;
    if (c.peekType() != JsonCursor::Type::Object)
        return typeError(c, where, "an object");
    c.beginObject();
    bool first = true, hasInputs = false, hasIndex = false;
    std::string_view key;
    std::string keyStorage;
    while (c.nextMember(first, key, keyStorage)) {
        if (key == "index") {
            qint64 v;
            if (c.peekType() != JsonCursor::Type::Number || !c.readInt64(v))
                return typeError(c, where + QLatin1String(" 'index'"), "an integer");
            if (v != index)
                return fail(QStringLiteral("%1: 'index' is %2, expected %1 (calls are listed in order)").arg(index).arg(v)
                                .prepend(QLatin1String("call ")));
            hasIndex = true;
        } else if (key == "num_positional") {
            qint64 v;
            if (c.peekType() != JsonCursor::Type::Number || !c.readInt64(v) || v < 0 || v > 1 << 20)
                return typeError(c, where + QLatin1String(" 'num_positional'"), "a non-negative integer");
            call.numPositional = int(v);
        } else if (key == "inputs") {
            m_treeName = QStringLiteral("inputs");
            reserveLike(call.inputs, m_lastInputs);
            const int root = parseNode(c, call.inputs, -1, NodeLoc(), 0);
            if (root < 0)
                return false;
            call.inputs.root = root;
            if (call.inputs.nodes[root].kind != NodeKind::Dict)
                return fail(QStringLiteral("%1: 'inputs' must be a dict node keyed by parameter name").arg(where));
            hasInputs = true;
        } else if (key == "outputs") {
            if (c.peekType() == JsonCursor::Type::Null) {
                c.readNull();
            } else {
                m_treeName = QStringLiteral("outputs");
                reserveLike(call.outputs, m_lastOutputs);
                const int root = parseNode(c, call.outputs, -1, NodeLoc(), 0);
                if (root < 0)
                    return false;
                call.outputs.root = root;
            }
        } else if (key == "missing") {
            if (!readStringList(c, call.missing, where + QLatin1String(" 'missing'")))
                return false;
        } else if (key == "filled") {
            if (!readStringList(c, call.filled, where + QLatin1String(" 'filled'")))
                return false;
        } else if (key == "constant_kwargs") {
            if (c.peekType() != JsonCursor::Type::Object)
                return typeError(c, where + QLatin1String(" 'constant_kwargs'"), "an object");
            QJsonValue v;
            c.readValue(v);
            call.constantKwargs = v.toObject();
        } else {
            c.skipValue();
        }
        if (!c.ok())
            return jsonFailed(c);
    }
    if (!c.ok())
        return jsonFailed(c);
    Q_UNUSED(hasIndex);
    if (!hasInputs)
        return fail(QStringLiteral("%1 has no 'inputs'").arg(where));
    for (const QString &f : std::as_const(call.filled)) {
        if (!call.missing.contains(f))
            return fail(QStringLiteral("%1: filled input '%2' is not listed in 'missing'").arg(where, f));
    }
    call.index = index;
    fitAndRemember(call.inputs, m_lastInputs);
    if (!call.outputs.isEmpty())
        fitAndRemember(call.outputs, m_lastOutputs);
    if (!checkPaths(call.inputs, where, false))
        return false;
    if (!call.outputs.isEmpty() && !checkPaths(call.outputs, where, true))
        return false;
    return true;
}

int ManifestParser::parseNode(JsonCursor &c, CallTree &tree, int parent, const NodeLoc &loc, int depth)
{
    // Messages name the node lazily (only on failure): building a location string
    // for each of 30,000 nodes would cost more than parsing them.
    auto where = [&] { return describe(loc); };
    if (depth > kMaxTreeDepth) {
        fail(QStringLiteral("%1: the tree is nested more than %2 levels deep").arg(where()).arg(kMaxTreeDepth));
        return -1;
    }
    if (c.peekType() != JsonCursor::Type::Object) {
        typeError(c, where(), "a node object");
        return -1;
    }
    const int self = tree.nodes.size();
    tree.nodes.append(TreeNode());
    tree.nodes[self].parent = parent;
    NodeFields f;
    c.beginObject();
    bool first = true;
    std::string_view key;
    std::string keyStorage;
    std::string storage;
    std::string_view s;
    auto stringField = [&](const char *name) -> bool {
        if (c.peekType() != JsonCursor::Type::String)
            return typeError(c, QStringLiteral("%1: '%2'").arg(where(), QLatin1String(name)), "a string");
        return c.readString(s, storage) || jsonFailed(c);
    };
    while (c.nextMember(first, key, keyStorage)) {
        if (key == "kind") {
            if (!stringField("kind"))
                return -1;
            f.kind = nodeKindFromName(s);
            if (!f.kind) {
                fail(QStringLiteral("%1: unknown node kind %2").arg(where(), quoted(s)));
                return -1;
            }
        } else if (key == "keys") {
            if (!readStringList(c, f.keys, where() + QLatin1String(": 'keys'")))
                return -1;
            f.hasKeys = true;
        } else if (key == "fields") {
            if (!readStringList(c, f.fields, where() + QLatin1String(": 'fields'")))
                return -1;
            f.hasFields = true;
        } else if (key == "children") {
            if (c.peekType() != JsonCursor::Type::Array) {
                typeError(c, where() + QLatin1String(": 'children'"), "a list of nodes");
                return -1;
            }
            c.beginArray();
            bool ef = true;
            while (c.nextElement(ef)) {
                const NodeLoc childLoc{&loc, &f, int(f.children.size())};
                const int child = parseNode(c, tree, self, childLoc, depth + 1);
                if (child < 0)
                    return -1;
                f.children.append(child);
            }
            if (!c.ok()) {
                jsonFailed(c);
                return -1;
            }
            f.hasChildren = true;
        } else if (key == "type") {
            if (!stringField("type"))
                return -1;
            f.type = m_pool.string(s);
            f.hasType = true;
        } else if (key == "flavour") {
            if (!stringField("flavour"))
                return -1;
            f.flavour = m_pool.string(s);
            f.hasFlavour = true;
        } else if (key == "context") {
            c.readValue(f.context);
        } else if (key == "tensor") {
            if (!stringField("tensor"))
                return -1;
            f.tensor.assign(s.data(), s.size());
            f.hasTensor = true;
        } else if (key == "dtype") {
            if (!stringField("dtype"))
                return -1;
            f.dtypeName.assign(s.data(), s.size());
            f.hasDtype = true;
        } else if (key == "shape") {
            bool ok = c.peekType() == JsonCursor::Type::Array;
            if (ok) {
                c.beginArray();
                bool ef = true;
                while (c.nextElement(ef)) {
                    qint64 d;
                    if (c.peekType() != JsonCursor::Type::Number || !c.readInt64(d) || d < 0) {
                        ok = false;
                        break;
                    }
                    f.shape.append(d);
                }
            }
            if (!ok || !c.ok()) {
                fail(QStringLiteral("%1: 'shape' must be a list of non-negative integers").arg(where()));
                return -1;
            }
            f.hasShape = true;
        } else if (key == "device") {
            if (!stringField("device"))
                return -1;
            f.device = m_pool.string(s);
        } else if (key == "path") {
            if (!stringField("path"))
                return -1;
            f.path = m_pool.string(s);
            f.hasPath = true;
        } else if (key == "value") {
            c.readValue(f.value);
            f.hasValue = true;
        } else {
            c.skipValue();
        }
        if (!c.ok()) {
            jsonFailed(c);
            return -1;
        }
    }
    if (!c.ok()) {
        jsonFailed(c);
        return -1;
    }
    if (!f.kind) {
        fail(QStringLiteral("%1: node has no 'kind'").arg(where()));
        return -1;
    }
    const NodeKind kind = *f.kind;
    if (isLeafKind(kind)) {
        if (!finishLeaf(tree, self, kind, f, loc))
            return -1;
        return self;
    }
    if (!f.hasChildren) {
        fail(QStringLiteral("%1: %2 node has no 'children'").arg(where(), kind == NodeKind::Custom ? QStringLiteral("custom") : QStringLiteral("container")));
        return -1;
    }
    TreeNode &n = tree.nodes[self];
    n.kind = kind;
    n.children = std::move(f.children);
    switch (kind) {
    case NodeKind::Dict:
        if (!f.hasKeys) {
            fail(QStringLiteral("%1: dict node has no 'keys'").arg(where()));
            return -1;
        }
        n.keys = f.keys;
        break;
    case NodeKind::NamedTuple:
        if (!f.hasType || !f.hasFields) {
            fail(QStringLiteral("%1: namedtuple node needs 'type' and 'fields'").arg(where()));
            return -1;
        }
        n.typeName = f.type;
        n.keys = f.fields;
        break;
    case NodeKind::Custom:
        if (!f.hasType || !f.hasFlavour || !f.hasKeys) {
            fail(QStringLiteral("%1: custom node needs 'type', 'flavour' and 'keys'").arg(where()));
            return -1;
        }
        n.typeName = f.type;
        n.flavour = f.flavour;
        n.keys = f.keys;
        n.context = f.context;
        break;
    default:
        break;
    }
    if ((kind == NodeKind::Dict || kind == NodeKind::NamedTuple || kind == NodeKind::Custom)
        && n.keys.size() != n.children.size()) {
        fail(QStringLiteral("%1: %2 %3 for %4 children")
                 .arg(where())
                 .arg(n.keys.size())
                 .arg(kind == NodeKind::NamedTuple ? QStringLiteral("fields") : QStringLiteral("keys"))
                 .arg(n.children.size()));
        return -1;
    }
    return self;
}

bool ManifestParser::finishLeaf(CallTree &tree, int self, NodeKind kind, NodeFields &f, const NodeLoc &loc)
{
    auto where = [&] { return describe(loc); };
    if (f.hasChildren)
        return fail(QStringLiteral("%1: a leaf node cannot have 'children'").arg(where()));
    if (!f.hasPath)
        return fail(QStringLiteral("%1: leaf has no 'path'").arg(where()));
    auto leafWhere = [&] { return QStringLiteral("%1, leaf %2").arg(m_callWhere, f.path); };
    Leaf leaf;
    leaf.path = f.path;
    leaf.kind = kind;
    leaf.node = self;
    switch (kind) {
    case NodeKind::Tensor: {
        if (!f.hasTensor || !f.hasDtype || !f.hasShape)
            return fail(QStringLiteral("%1: tensor leaf needs 'tensor', 'dtype' and 'shape'").arg(leafWhere()));
        const SafetensorsHeader::Tensor *t = m_header.find(f.tensor);
        if (!t)
            return fail(QStringLiteral("%1: tensor %2 is not in the header").arg(leafWhere(), quoted(f.tensor)));
        const auto dt = dtype::fromSafetensors(f.dtypeName.data(), qsizetype(f.dtypeName.size()));
        if (!dt)
            return fail(QStringLiteral("%1: unknown dtype %2").arg(leafWhere(), quoted(f.dtypeName)));
        if (*dt != t->dtype)
            return fail(QStringLiteral("%1: dtype %2 disagrees with the header's %3 for tensor %4")
                            .arg(leafWhere(), dtype::safetensorsName(*dt), dtype::safetensorsName(t->dtype), quoted(f.tensor)));
        if (f.shape.size() != t->shape.size() || !std::equal(f.shape.cbegin(), f.shape.cend(), t->shape.cbegin()))
            return fail(QStringLiteral("%1: shape %2 disagrees with the header's %3 for tensor %4")
                            .arg(leafWhere(), shapeText(QVector<qint64>(f.shape.cbegin(), f.shape.cend())), shapeText(t->shape), quoted(f.tensor)));
        leaf.dtype = t->dtype;
        leaf.shape = t->shape; // interned: shared with every equal shape
        leaf.device = f.device.isNull() ? m_pool.string("cpu") : f.device;
        leaf.tensorName = QString::fromUtf8(f.tensor.data(), qsizetype(f.tensor.size()));
        leaf.fileOffset = m_dataStart + t->begin;
        leaf.byteSize = t->end - t->begin;
        break;
    }
    case NodeKind::None:
        break;
    default: {
        if (!f.hasValue)
            return fail(QStringLiteral("%1: %2 leaf has no 'value'").arg(leafWhere(), kind == NodeKind::String ? QStringLiteral("str") : kind == NodeKind::Int ? QStringLiteral("int") : kind == NodeKind::Float ? QStringLiteral("float") : QStringLiteral("bool")));
        const QJsonValue &v = f.value;
        bool good = false;
        const char *expected = "";
        switch (kind) {
        case NodeKind::Int:
            good = v.isDouble() && std::isfinite(v.toDouble()) && double(v.toInteger()) == v.toDouble();
            expected = "an integer";
            break;
        case NodeKind::Float:
            good = v.isDouble();
            expected = "a number";
            break;
        case NodeKind::Bool:
            good = v.isBool();
            expected = "a boolean";
            break;
        default:
            good = v.isString();
            expected = "a string";
            break;
        }
        if (!good)
            return fail(QStringLiteral("%1: 'value' must be %2").arg(leafWhere(), QLatin1String(expected)));
        leaf.value = v;
        break;
    }
    }
    TreeNode &n = tree.nodes[self];
    n.kind = kind;
    n.leaf = tree.leaves.size();
    tree.leaves.append(std::move(leaf));
    return true;
}

bool ManifestParser::checkPaths(const CallTree &tree, const QString &callWhere, bool outputs)
{
    // One buffer for the whole walk: segments are appended and cut back.
    QString path = outputs ? QStringLiteral("output") : QString();
    path.reserve(256);
    return checkPathsFrom(tree, tree.root, path, !outputs, callWhere);
}

bool ManifestParser::checkPathsFrom(const CallTree &tree, int node, QString &path, bool topLevel, const QString &callWhere)
{
    const TreeNode &n = tree.nodes.at(node);
    if (n.leaf >= 0) {
        const Leaf &leaf = tree.leaves.at(n.leaf);
        if (leaf.path != path)
            return fail(QStringLiteral("%1, leaf %2: path does not match its place in the tree (expected %3)")
                            .arg(callWhere, leaf.path, path));
        return true;
    }
    for (int i = 0; i < n.children.size(); ++i) {
        const qsizetype length = path.size();
        switch (n.kind) {
        case NodeKind::Dict:
            if (topLevel)
                path += n.keys.at(i);
            else
                path += QLatin1String("['") + n.keys.at(i) + QLatin1String("']");
            break;
        case NodeKind::NamedTuple:
        case NodeKind::Custom:
            path += QLatin1Char('.') + n.keys.at(i);
            break;
        default:
            path += QLatin1Char('[') + QString::number(i) + QLatin1Char(']');
            break;
        }
        if (!checkPathsFrom(tree, n.children.at(i), path, false, callWhere))
            return false;
        path.truncate(length);
    }
    return true;
}

void ManifestParser::reserveLike(CallTree &tree, const QPair<int, int> &sizes)
{
    tree.nodes.reserve(sizes.first);
    tree.leaves.reserve(sizes.second);
}

void ManifestParser::fitAndRemember(CallTree &tree, QPair<int, int> &sizes)
{
    if (tree.nodes.capacity() > tree.nodes.size())
        tree.nodes.squeeze();
    if (tree.leaves.capacity() > tree.leaves.size())
        tree.leaves.squeeze();
    sizes = {int(tree.nodes.size()), int(tree.leaves.size())};
}

} // namespace dimscope
