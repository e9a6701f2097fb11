// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture/manifestparser.h"

#include "capture/internpool.h"
#include "json/jsoncursor.h"
#include "capture/keypath.h"
#include "capture/safetensorsheader.h"
#include "util/terminaltext.h"

#include <QJsonArray>
#include <QVarLengthArray>

#include <algorithm>
#include <cmath>
#include <limits>

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

// The first key that appears twice. Nodes have a handful of keys: comparing pairs
// costs less than a hash; only large nodes pay for a sorted copy.
std::optional<QString> repeatedKey(const QStringList &keys)
{
    const qsizetype n = keys.size();
    if (n <= 16) {
        for (qsizetype i = 1; i < n; ++i) {
            for (qsizetype j = 0; j < i; ++j) {
                if (keys.at(i) == keys.at(j))
                    return keys.at(i);
            }
        }
        return std::nullopt;
    }
    QStringList sorted = keys;
    sorted.sort();
    for (qsizetype i = 1; i < n; ++i) {
        if (sorted.at(i) == sorted.at(i - 1))
            return sorted.at(i);
    }
    return std::nullopt;
}

// Where the list or object at `p` ends, found by its brackets and strings alone,
// without checking anything else; nullptr when it does not end before `end`.
const char *endOfBracketed(const char *p, const char *end)
{
    int depth = 0;
    for (; p < end; ++p) {
        const char ch = *p;
        if (ch == '"') {
            for (++p; p < end && *p != '"'; ++p) {
                if (*p == '\\')
                    ++p;
            }
            if (p >= end)
                return nullptr;
        } else if (ch == '[' || ch == '{') {
            ++depth;
        } else if ((ch == ']' || ch == '}') && --depth == 0) {
            return p + 1;
        }
    }
    return nullptr;
}

const QStringList kParameterKinds = {
    QStringLiteral("POSITIONAL_ONLY"), QStringLiteral("POSITIONAL_OR_KEYWORD"), QStringLiteral("VAR_POSITIONAL"),
    QStringLiteral("KEYWORD_ONLY"), QStringLiteral("VAR_KEYWORD"),
};
} // namespace

// The members a node object may have (docs/capture-format.md, "Manifest"); each known
// one is a bit in readNodeFields' mask of the members seen.
enum class NodeMember { Kind, Keys, Fields, Children, Type, Flavour, Context, Tensor, Dtype, Shape, Device, Path, Value, Repr, Other };

namespace {
NodeMember nodeMemberFromName(std::string_view key)
{
    static const struct { const char *name; NodeMember member; } kMembers[] = {
        {"kind", NodeMember::Kind}, {"keys", NodeMember::Keys}, {"fields", NodeMember::Fields},
        {"children", NodeMember::Children}, {"type", NodeMember::Type}, {"flavour", NodeMember::Flavour},
        {"context", NodeMember::Context}, {"tensor", NodeMember::Tensor}, {"dtype", NodeMember::Dtype},
        {"shape", NodeMember::Shape}, {"device", NodeMember::Device}, {"path", NodeMember::Path},
        {"value", NodeMember::Value}, {"repr", NodeMember::Repr},
    };
    for (const auto &e : kMembers) {
        if (key == e.name)
            return e.member;
    }
    return NodeMember::Other;
}
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
    bool valueIsInteger = false; // `value` was written as an integer (no fraction or exponent)
    QString repr;                // a float leaf's "nan", "inf" or "-inf" when its value is null
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
    QString path = *parentPath;
    appendKeyPathSegment(path, *pf.kind, names, loc.index, topLevel);
    return path;
}

// "call 1, inputs" for a root; "call 1, node past_key_values.key_cache" below it when
// the key path is known (the parent's kind and keys came before its children, the
// usual member order); else "call 1, inputs child 2".
QString ManifestParser::describe(const NodeLoc &loc) const
{
    if (!loc.parent)
        return QStringLiteral("%1, %2").arg(m_callWhere, m_treeName);
    if (const std::optional<QString> path = pathOf(loc))
        return QStringLiteral("%1, node %2").arg(m_callWhere, TerminalText::field(*path));
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
    if (c.refused()) // valid JSON, but a number this reader cannot hold exactly, or a name twice
        return fail(QStringLiteral("manifest: %1").arg(c.error()));
    return fail(QStringLiteral("manifest is not valid JSON: %1").arg(c.error()));
}

bool ManifestParser::valueFailed(JsonCursor &c, const QString &what)
{
    if (c.refused())
        return fail(QStringLiteral("%1: %2").arg(what, c.error()));
    return jsonFailed(c);
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

// The loop over an object's members; `onMember(key)` reads the value (or fails).
// Every member handler may leave a failed cursor behind: that is reported here.
template <typename OnMember>
bool ManifestParser::readMembers(JsonCursor &c, OnMember &&onMember)
{
    bool reported = false; // onMember failed and said why
    const bool read = c.forEachMember([&](std::string_view key) {
        reported = !onMember(key);
        return !reported && c.ok();
    });
    return read || (!reported && jsonFailed(c));
}

// The loop over a list's elements; `onElement()` reads one (or fails).
template <typename OnElement>
bool ManifestParser::readElements(JsonCursor &c, OnElement &&onElement)
{
    bool reported = false; // onElement failed and said why
    const bool read = c.forEachElement([&] {
        reported = !onElement();
        return !reported;
    });
    return read || (!reported && jsonFailed(c));
}

bool ManifestParser::readStringList(JsonCursor &c, QStringList &out, const QString &what)
{
    if (c.peekType() != JsonCursor::Type::Array)
        return typeError(c, what, "a list of strings");
    std::string storage;
    std::string_view s;
    return readElements(c, [&] {
        if (c.peekType() != JsonCursor::Type::String)
            return typeError(c, what, "a list of strings");
        if (!c.readString(s, storage))
            return jsonFailed(c);
        out.append(m_pool.string(s));
        return true;
    });
}

bool ManifestParser::readOptionalString(JsonCursor &c, QString &out, const QString &what)
{
    if (c.peekType() == JsonCursor::Type::Null)
        return c.readNull() || jsonFailed(c);
    if (c.peekType() != JsonCursor::Type::String)
        return typeError(c, what, "a string or null");
    return c.readString(out) || jsonFailed(c);
}

bool ManifestParser::parse(std::string_view manifest, Capture &out, QString *error)
{
    JsonCursor c(manifest.data(), manifest.data() + manifest.size());
    m_manifestEnd = manifest.data() + manifest.size();
    c.setAllowNonFinite(true);
    c.setExact(true);
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
                c.seek(callsAt, m_callsDepth);
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
    bool hasFormat = false, hasVersion = false, hasModel = false;
    const bool ok = readMembers(c, [&](std::string_view key) {
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
            if (c.peekType() != JsonCursor::Type::Number)
                return typeError(c, QStringLiteral("manifest 'version'"), "an integer");
            if (!c.readInt64(v))
                return valueFailed(c, QStringLiteral("manifest 'version'"));
            out.formatVersion = int(qBound<qint64>(-1, v, qint64(1) << 30));
            hasVersion = true;
        } else if (key == "producer") {
            return readOptionalString(c, out.producer, QStringLiteral("manifest 'producer'"));
        } else if (key == "torch_version") {
            return readOptionalString(c, out.torchVersion, QStringLiteral("manifest 'torch_version'"));
        } else if (key == "transformers_version") {
            return readOptionalString(c, out.transformersVersion, QStringLiteral("manifest 'transformers_version'"));
        } else if (key == "recording") { // what a `record` request ran (docs/capture-format.md)
            if (c.peekType() == JsonCursor::Type::Null)
                return c.readNull() || jsonFailed(c);
            if (c.peekType() != JsonCursor::Type::Object)
                return typeError(c, QStringLiteral("manifest 'recording'"), "an object");
            QJsonValue v;
            if (!c.readValue(v))
                return valueFailed(c, QStringLiteral("manifest 'recording'"));
            out.recording = v.toObject();
        } else if (key == "model") {
            hasModel = parseModel(c, out);
            return hasModel;
        } else if (key == "flattening") {
            return parseFlattening(c, out);
        } else if (key == "value_if_missing") {
            if (c.peekType() == JsonCursor::Type::Null)
                return c.readNull() || jsonFailed(c);
            return readStringList(c, out.valueIfMissing, QStringLiteral("manifest 'value_if_missing'"));
        } else if (key == "calls") {
            if (c.peekType() != JsonCursor::Type::Array)
                return typeError(c, QStringLiteral("manifest 'calls'"), "a list");
            callsAt = c.rawPosition();
            m_callsDepth = c.depth();
            if (hasFormat && hasVersion && out.formatVersion == kSupportedVersion) {
                // Usual order (format and version first): read the calls right away.
                if (!parseCalls(c, out))
                    return false;
                m_callsRead = true;
            } else if (const char *after = endOfBracketed(c.rawPosition(), m_manifestEnd)) {
                // 'calls' before the format and version (Qt writes keys sorted):
                // jumped over by its brackets alone, since the calls are read and
                // checked later anyway; validating them twice cost a fifth of the open.
                c.seek(after);
            } else if (!c.skipValue()) { // unbalanced: the full skip says where it breaks
                return jsonFailed(c);
            }
        } else if (!c.skipValue()) { // unknown members: ignored (newer writers may add some)
            return jsonFailed(c);
        }
        return true;
    });
    if (!ok)
        return false;
    if (!hasFormat)
        return fail(QStringLiteral("manifest has no 'format' (expected 'dimscope.capture')"));
    if (!hasVersion)
        return fail(QStringLiteral("manifest has no 'version'"));
    if (!hasModel)
        return fail(QStringLiteral("manifest has no 'model'"));
    return true;
}

bool ManifestParser::parseFlattening(JsonCursor &c, Capture &out)
{
    if (c.peekType() != JsonCursor::Type::Object)
        return typeError(c, QStringLiteral("manifest 'flattening'"), "an object of strings");
    return readMembers(c, [&](std::string_view k) {
        const QString cls = QString::fromUtf8(k.data(), qsizetype(k.size()));
        QString flavour;
        if (c.peekType() != JsonCursor::Type::String)
            return typeError(c, QStringLiteral("manifest 'flattening'"), "an object of strings");
        if (!c.readString(flavour))
            return jsonFailed(c);
        out.flattening.insert(cls, flavour);
        return true;
    });
}

bool ManifestParser::parseModel(JsonCursor &c, Capture &out)
{
    if (c.peekType() != JsonCursor::Type::Object)
        return typeError(c, QStringLiteral("manifest 'model'"), "an object");
    bool hasClass = false;
    const bool ok = readMembers(c, [&](std::string_view key) {
        if (key == "class") {
            if (c.peekType() != JsonCursor::Type::String)
                return typeError(c, QStringLiteral("model 'class'"), "a string");
            if (!c.readString(out.modelClass))
                return jsonFailed(c);
            hasClass = true;
        } else if (key == "signature") {
            if (c.peekType() != JsonCursor::Type::Array)
                return typeError(c, QStringLiteral("model 'signature'"), "a list");
            return readElements(c, [&] {
                Parameter p;
                if (!parseParameter(c, QStringLiteral("model signature parameter %1").arg(out.signature.size()), p))
                    return false;
                out.signature.append(p);
                return true;
            });
        } else {
            c.skipValue();
        }
        return true;
    });
    if (!ok)
        return false;
    if (!hasClass)
        return fail(QStringLiteral("manifest 'model' has no 'class'"));
    return true;
}

bool ManifestParser::parseParameter(JsonCursor &c, const QString &where, Parameter &p)
{
    if (c.peekType() != JsonCursor::Type::Object)
        return typeError(c, where, "an object");
    bool hasName = false;
    const bool ok = readMembers(c, [&](std::string_view key) {
        if (key == "name") {
            if (c.peekType() != JsonCursor::Type::String)
                return typeError(c, where + QLatin1String(" 'name'"), "a string");
            c.readString(p.name);
            hasName = true;
        } else if (key == "kind") {
            if (c.peekType() != JsonCursor::Type::String)
                return typeError(c, where + QLatin1String(" 'kind'"), "a string");
            c.readString(p.kind);
            if (!kParameterKinds.contains(p.kind))
                return fail(QStringLiteral("%1: unknown parameter kind '%2'").arg(where, TerminalText::field(p.kind)));
        } else if (key == "has_default") {
            if (c.peekType() != JsonCursor::Type::Bool)
                return typeError(c, where + QLatin1String(" 'has_default'"), "a boolean");
            c.readBool(p.hasDefault);
        } else if (key == "default") {
            if (!c.readValue(p.defaultValue))
                return valueFailed(c, where + QLatin1String(" 'default'"));
        } else if (key == "default_repr") {
            return readOptionalString(c, p.defaultRepr, where + QLatin1String(" 'default_repr'"));
        } else {
            c.skipValue();
        }
        return true;
    });
    if (!ok)
        return false;
    if (!hasName)
        return fail(QStringLiteral("%1 has no 'name'").arg(where));
    return true;
}

bool ManifestParser::parseCalls(JsonCursor &c, Capture &out)
{
    const bool ok = readElements(c, [&] {
        CapturedCall call;
        if (!parseCall(c, out.calls.size(), call))
            return false;
        out.calls.append(std::move(call));
        if (m_consumed)
            m_consumed(c.rawPosition());
        return true;
    });
    if (!ok)
        return false;
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
    bool hasInputs = false;
    const bool ok = readMembers(c, [&](std::string_view key) {
        if (key == "index") {
            qint64 v;
            if (c.peekType() != JsonCursor::Type::Number)
                return typeError(c, where + QLatin1String(" 'index'"), "an integer");
            if (!c.readInt64(v))
                return valueFailed(c, where + QLatin1String(" 'index'"));
            if (v != index)
                return fail(QStringLiteral("%1: 'index' is %2, expected %1 (calls are listed in order)").arg(index).arg(v)
                                .prepend(QLatin1String("call ")));
        } else if (key == "num_positional") {
            qint64 v;
            const QString what = where + QLatin1String(" 'num_positional'");
            if (c.peekType() != JsonCursor::Type::Number)
                return typeError(c, what, "a non-negative integer");
            if (!c.readInt64(v))
                return valueFailed(c, what);
            if (v < 0 || v > std::numeric_limits<int>::max())
                return fail(QStringLiteral("%1 is %2, outside 0 .. %3").arg(what).arg(v).arg(std::numeric_limits<int>::max()));
            call.numPositional = int(v);
        } else if (key == "inputs") {
            if (!parseTree(c, QStringLiteral("inputs"), call.inputs, m_lastInputs))
                return false;
            if (call.inputs.nodes[call.inputs.root].kind != NodeKind::Dict)
                return fail(QStringLiteral("%1: 'inputs' must be a dict node keyed by parameter name").arg(where));
            hasInputs = true;
        } else if (key == "outputs") {
            if (c.peekType() != JsonCursor::Type::Null)
                return parseTree(c, QStringLiteral("outputs"), call.outputs, m_lastOutputs);
            if (!c.readNull())
                return jsonFailed(c);
        } else if (key == "missing") {
            return readStringList(c, call.missing, where + QLatin1String(" 'missing'"));
        } else if (key == "filled") {
            return readStringList(c, call.filled, where + QLatin1String(" 'filled'"));
        } else if (key == "constant_kwargs") {
            if (c.peekType() != JsonCursor::Type::Object)
                return typeError(c, where + QLatin1String(" 'constant_kwargs'"), "an object");
            QJsonValue v;
            if (!c.readValue(v))
                return valueFailed(c, where + QLatin1String(" 'constant_kwargs'"));
            call.constantKwargs = v.toObject();
        } else {
            c.skipValue();
        }
        return true;
    });
    if (!ok)
        return false;
    if (!hasInputs)
        return fail(QStringLiteral("%1 has no 'inputs'").arg(where));
    for (const QString &f : std::as_const(call.filled)) {
        if (!call.missing.contains(f))
            return fail(QStringLiteral("%1: filled input '%2' is not listed in 'missing'").arg(where, TerminalText::field(f)));
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

// One call's inputs or outputs; `lastSizes` (the previous call's) sizes its arrays.
bool ManifestParser::parseTree(JsonCursor &c, const QString &treeName, CallTree &tree, const QPair<int, int> &lastSizes)
{
    m_treeName = treeName;
    reserveLike(tree, lastSizes);
    const int root = parseNode(c, tree, -1, NodeLoc(), 0);
    if (root < 0)
        return false;
    tree.root = root;
    return true;
}

// Returns the node's index in tree.nodes, or -1 after fail().
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
    if (!readNodeFields(c, tree, self, f, loc, depth))
        return -1;
    if (!f.kind) {
        fail(QStringLiteral("%1: node has no 'kind'").arg(where()));
        return -1;
    }
    const bool ok = isLeafKind(*f.kind) ? finishLeaf(tree, self, *f.kind, f, loc) : finishContainer(tree, self, *f.kind, f, loc);
    return ok ? self : -1;
}

// The members of a node object, in any order, into `f`; children are parsed on the way.
bool ManifestParser::readNodeFields(JsonCursor &c, CallTree &tree, int self, NodeFields &f, const NodeLoc &loc, int depth)
{
    // Written out rather than through readMembers: this loop runs for every node of
    // every call, and the callback costs ~1% of the open time.
    // Member names are checked here, not by the cursor (beginObject(false)): the known
    // ones as bits, since this loop runs for every node of every call, others as text.
    quint32 seen = 0;
    std::vector<std::string> otherNames;
    std::string_view key;
    c.beginObject(false);
    bool first = true;
    std::string keyStorage;
    while (c.nextMember(first, key, keyStorage)) {
        const NodeMember member = nodeMemberFromName(key);
        bool repeated;
        if (member == NodeMember::Other) {
            repeated = std::find(otherNames.cbegin(), otherNames.cend(), key) != otherNames.cend();
            otherNames.emplace_back(key);
        } else {
            const quint32 bit = 1u << int(member);
            repeated = seen & bit;
            seen |= bit;
        }
        if (repeated) {
            c.failDuplicate(key);
            return valueFailed(c, describe(loc));
        }
        if (member == NodeMember::Other)
            c.skipValue();
        else if (!readNodeMember(c, member, tree, self, f, loc, depth))
            return false;
        if (!c.ok())
            return jsonFailed(c);
    }
    return c.ok() || jsonFailed(c);
}

// One known member's value into `f` (the member was not seen before in this node).
bool ManifestParser::readNodeMember(JsonCursor &c, NodeMember member, CallTree &tree, int self, NodeFields &f, const NodeLoc &loc, int depth)
{
    auto where = [&] { return describe(loc); };
    std::string storage;
    std::string_view s;
    bool hasDevice = false; // optional: leaves default to "cpu"
    switch (member) {
    case NodeMember::Kind:
        if (!readNodeString(c, loc, "kind", s, storage))
            return false;
        f.kind = nodeKindFromName(s);
        if (!f.kind)
            return fail(QStringLiteral("%1: unknown node kind %2").arg(where(), quoted(s)));
        return true;
    case NodeMember::Keys:
        if (!readStringList(c, f.keys, where() + QLatin1String(": 'keys'")))
            return false;
        f.hasKeys = true;
        return true;
    case NodeMember::Fields:
        if (!readStringList(c, f.fields, where() + QLatin1String(": 'fields'")))
            return false;
        f.hasFields = true;
        return true;
    case NodeMember::Children:
        return readNodeChildren(c, tree, self, f, loc, depth);
    case NodeMember::Type:
        return readNodeInterned(c, loc, "type", f.type, f.hasType);
    case NodeMember::Flavour:
        return readNodeInterned(c, loc, "flavour", f.flavour, f.hasFlavour);
    case NodeMember::Context:
        return c.readValue(f.context) || valueFailed(c, where() + QLatin1String(": 'context'"));
    case NodeMember::Tensor:
        return readNodeBytes(c, loc, "tensor", f.tensor, f.hasTensor);
    case NodeMember::Dtype:
        return readNodeBytes(c, loc, "dtype", f.dtypeName, f.hasDtype);
    case NodeMember::Shape:
        if (!c.readNonNegativeInts(f.shape))
            return fail(QStringLiteral("%1: 'shape' must be a list of non-negative integers").arg(where()));
        f.hasShape = true;
        return true;
    case NodeMember::Device:
        return readNodeInterned(c, loc, "device", f.device, hasDevice);
    case NodeMember::Path:
        return readNodeInterned(c, loc, "path", f.path, f.hasPath);
    case NodeMember::Value:
        return readNodeValue(c, f, loc);
    case NodeMember::Repr:
        if (!readNodeString(c, loc, "repr", s, storage))
            return false;
        f.repr = QString::fromUtf8(s.data(), qsizetype(s.size()));
        return true;
    case NodeMember::Other:
        break;
    }
    c.skipValue();
    return true;
}

// A node's 'children': each parsed as a node (and appended to the tree) on the way.
bool ManifestParser::readNodeChildren(JsonCursor &c, CallTree &tree, int self, NodeFields &f, const NodeLoc &loc, int depth)
{
    if (c.peekType() != JsonCursor::Type::Array)
        return typeError(c, describe(loc) + QLatin1String(": 'children'"), "a list of nodes");
    const bool ok = readElements(c, [&] {
        const NodeLoc childLoc{&loc, &f, int(f.children.size())};
        const int child = parseNode(c, tree, self, childLoc, depth + 1);
        if (child < 0)
            return false;
        f.children.append(child);
        return true;
    });
    if (!ok)
        return false;
    f.hasChildren = true;
    return true;
}

// A leaf's 'value', and whether it was written as an integer.
bool ManifestParser::readNodeValue(JsonCursor &c, NodeFields &f, const NodeLoc &loc)
{
    // An int leaf's value must be written as an integer: 1.0 or 1e2 would be a
    // float to Python's json, and the model would get one.
    const bool number = c.peekType() == JsonCursor::Type::Number;
    const char *token = c.rawPosition();
    if (!c.readValue(f.value))
        return valueFailed(c, describe(loc) + QLatin1String(": 'value'"));
    f.valueIsInteger = number && std::none_of(token, c.rawPosition(), [](char ch) {
        return ch == '.' || ch == 'e' || ch == 'E' || ch == 'N' || ch == 'I';
    });
    f.hasValue = true;
    return true;
}

// A string member of a node into `s` (which may point into `storage`).
bool ManifestParser::readNodeString(JsonCursor &c, const NodeLoc &loc, const char *name, std::string_view &s, std::string &storage)
{
    if (c.peekType() != JsonCursor::Type::String)
        return typeError(c, QStringLiteral("%1: '%2'").arg(describe(loc), QLatin1String(name)), "a string");
    return c.readString(s, storage) || jsonFailed(c);
}

// A string member kept as a (shared) QString, and its has-flag.
bool ManifestParser::readNodeInterned(JsonCursor &c, const NodeLoc &loc, const char *name, QString &out, bool &has)
{
    std::string storage;
    std::string_view s;
    if (!readNodeString(c, loc, name, s, storage))
        return false;
    out = m_pool.string(s);
    has = true;
    return true;
}

// A string member kept as bytes, and its has-flag.
bool ManifestParser::readNodeBytes(JsonCursor &c, const NodeLoc &loc, const char *name, std::string &out, bool &has)
{
    std::string storage;
    std::string_view s;
    if (!readNodeString(c, loc, name, s, storage))
        return false;
    out.assign(s.data(), s.size());
    has = true;
    return true;
}

bool ManifestParser::finishContainer(CallTree &tree, int self, NodeKind kind, NodeFields &f, const NodeLoc &loc)
{
    auto where = [&] { return describe(loc); };
    if (!f.hasChildren)
        return fail(QStringLiteral("%1: %2 node has no 'children'").arg(where(), kind == NodeKind::Custom ? QStringLiteral("custom") : QStringLiteral("container")));
    TreeNode &n = tree.nodes[self];
    n.kind = kind;
    n.children = std::move(f.children);
    switch (kind) {
    case NodeKind::Dict:
        if (!f.hasKeys)
            return fail(QStringLiteral("%1: dict node has no 'keys'").arg(where()));
        n.keys = f.keys;
        break;
    case NodeKind::NamedTuple:
        if (!f.hasType || !f.hasFields)
            return fail(QStringLiteral("%1: namedtuple node needs 'type' and 'fields'").arg(where()));
        n.setClass(f.type);
        n.keys = f.fields;
        break;
    case NodeKind::Custom:
        if (!f.hasType || !f.hasFlavour || !f.hasKeys)
            return fail(QStringLiteral("%1: custom node needs 'type', 'flavour' and 'keys'").arg(where()));
        n.setClass(f.type, f.flavour, f.context);
        n.keys = f.keys;
        break;
    default:
        break;
    }
    const bool keyed = kind == NodeKind::Dict || kind == NodeKind::NamedTuple || kind == NodeKind::Custom;
    if (keyed && n.keys.size() != n.children.size()) {
        return fail(QStringLiteral("%1: %2 %3 for %4 children")
                        .arg(where())
                        .arg(n.keys.size())
                        .arg(kind == NodeKind::NamedTuple ? QStringLiteral("fields") : QStringLiteral("keys"))
                        .arg(n.children.size()));
    }
    // Two children under one key would get one key path: everything keyed by path
    // (constraints, shapes, the export) would see one of them and lose the other.
    if (keyed) {
        if (const std::optional<QString> twice = repeatedKey(n.keys))
            return fail(QStringLiteral("%1: %2 %3 appears twice")
                            .arg(where(), kind == NodeKind::NamedTuple ? QStringLiteral("field") : QStringLiteral("key"), quoted(twice->toStdString())));
    }
    return true;
}

bool ManifestParser::finishLeaf(CallTree &tree, int self, NodeKind kind, NodeFields &f, const NodeLoc &loc)
{
    auto where = [&] { return describe(loc); };
    if (f.hasChildren)
        return fail(QStringLiteral("%1: a leaf node cannot have 'children'").arg(where()));
    if (!f.hasPath)
        return fail(QStringLiteral("%1: leaf has no 'path'").arg(where()));
    auto leafWhere = [&] { return QStringLiteral("%1, leaf %2").arg(m_callWhere, TerminalText::field(f.path)); };
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
        leaf.tensor = int(t - m_header.tensors().data()); // header order: Capture::tensorNames
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
            good = f.valueIsInteger; // an integer literal the cursor held exactly
            expected = "an integer (written without fraction or exponent)";
            break;
        case NodeKind::Float:
            // JSON has no NaN or infinity: the recorder writes null and says which in repr.
            if (v.isNull()) {
                static const struct { const char *repr; double value; } kNonFinite[] = {
                    {"nan", std::numeric_limits<double>::quiet_NaN()},
                    {"inf", std::numeric_limits<double>::infinity()},
                    {"-inf", -std::numeric_limits<double>::infinity()},
                };
                for (const auto &nf : kNonFinite) {
                    if (f.repr == QLatin1String(nf.repr)) {
                        good = true;
                        f.value = nf.value;
                    }
                }
            } else {
                good = v.isDouble();
            }
            expected = "a number, or null with 'repr' \"nan\", \"inf\" or \"-inf\"";
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
    const QString error = checkLeafPaths(tree, outputs, callWhere);
    return error.isEmpty() || fail(error);
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
