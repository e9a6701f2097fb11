// SPDX-License-Identifier: GPL-3.0-or-later
#include "constraints/constraintsetjson.h"

#include "util/atomicfile.h"
#include "util/regularfile.h"
#include "util/terminaltext.h"

#include "json/jsoncursor.h"
#include "json/jsontext.h"

#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace dimscope {

static QString optionalInt(const std::optional<qint64> &v) { return v ? QString::number(*v) : QStringLiteral("null"); }

QString ConstraintSetJson::dimObject(const DimDecl &d)
{
    if (d.isDerived())
        return QStringLiteral("{\"name\": %1, \"root\": %2, \"a\": %3, \"b\": %4}")
            .arg(jsontext::quote(d.name), jsontext::quote(d.root))
            .arg(d.a)
            .arg(d.b);
    return QStringLiteral("{\"name\": %1, \"min\": %2, \"max\": %3}")
        .arg(jsontext::quote(d.name), optionalInt(d.min), optionalInt(d.max));
}

QByteArray ConstraintSetJson::write(const ConstraintSet &set)
{
    QString out = QStringLiteral("{\n  \"format\": \"dimscope.constraints\",\n  \"version\": %1,\n").arg(kVersion);
    if (set.dims().isEmpty()) {
        out += QLatin1String("  \"dims\": [],\n");
    } else {
        out += QLatin1String("  \"dims\": [\n");
        for (int i = 0; i < set.dims().size(); ++i)
            out += QLatin1String("    ") + dimObject(set.dims()[i]) + QLatin1String(i + 1 < set.dims().size() ? ",\n" : "\n");
        out += QLatin1String("  ],\n");
    }
    if (set.leaves().isEmpty()) {
        out += QLatin1String("  \"leaves\": {}\n");
    } else {
        out += QLatin1String("  \"leaves\": {\n");
        for (int i = 0; i < set.leaves().size(); ++i) {
            const LeafConstraint &l = set.leaves()[i];
            QStringList entries;
            for (const DimAssignment &a : l.dims)
                entries << jsontext::quote(a.toString());
            out += QLatin1String("    ") + jsontext::quote(l.path) + QLatin1String(": [") + entries.join(QStringLiteral(", "))
                + QLatin1String(i + 1 < set.leaves().size() ? "],\n" : "]\n");
        }
        out += QLatin1String("  }\n");
    }
    out += QLatin1String("}\n");
    return out.toUtf8();
}

namespace {

enum class IntRead { Ok, NotANumber, NotAnInteger, OutOfRange };

// The numbers of "dims" that are no 64-bit integer as written, by place ("dims[2].min"):
// those with a fraction or an exponent (NotAnInteger) and integers beyond 64 bits
// (OutOfRange). QJsonDocument cannot tell: it holds 1.0 as the integer 1,
// 9007199254740993.0 as 9007199254740992 and -9223372036854775809 as -2^63, and such
// a number would be written back changed (docs/spec-format.md).
QHash<QString, IntRead> inexactDimNumbers(const QByteArray &json)
{
    QHash<QString, IntRead> out;
    JsonCursor c(json.constData(), json.constData() + json.size());
    if (c.peekType() != JsonCursor::Type::Object || !c.beginObject())
        return out;
    bool first = true;
    std::string_view key;
    std::string keyStorage;
    while (c.nextMember(first, key, keyStorage)) {
        if (key != "dims" || c.peekType() != JsonCursor::Type::Array) {
            if (!c.skipValue())
                return out;
            continue;
        }
        c.beginArray();
        bool firstDim = true;
        for (int i = 0; c.nextElement(firstDim); ++i) {
            if (c.peekType() != JsonCursor::Type::Object) {
                if (!c.skipValue())
                    return out;
                continue;
            }
            c.beginObject();
            bool firstMember = true;
            std::string_view member;
            std::string memberStorage;
            while (c.nextMember(firstMember, member, memberStorage)) {
                const bool number = c.peekType() == JsonCursor::Type::Number;
                const char *token = c.rawPosition();
                if (!c.skipValue())
                    return out;
                if (!number)
                    continue;
                const char *end = c.rawPosition();
                const QString place = QStringLiteral("dims[%1].%2").arg(i).arg(QString::fromUtf8(member.data(), qsizetype(member.size())));
                qint64 exact;
                if (std::any_of(token, end, [](char ch) { return ch == '.' || ch == 'e' || ch == 'E'; }))
                    out.insert(place, IntRead::NotAnInteger);
                else if (std::from_chars(token, end, exact).ec != std::errc())
                    out.insert(place, IntRead::OutOfRange);
            }
        }
    }
    return out;
}

// An integer read exactly: `spelled` says what the text was (inexactDimNumbers); an
// integer spelled as one that fits 64 bits QJsonValue holds exactly.
IntRead readInt(const QJsonValue &v, IntRead spelled, qint64 *out)
{
    if (!v.isDouble())
        return IntRead::NotANumber;
    if (spelled != IntRead::Ok)
        return spelled;
    *out = v.toInteger();
    return IntRead::Ok;
}

// The message for a number that readInt refused at `place` ("dims[0].max").
QString intError(IntRead r, const QString &place, const QString &expected, const QString &found)
{
    switch (r) {
    case IntRead::NotAnInteger:
        return QStringLiteral("%1: expected %2, found a number with a fraction or an exponent").arg(place, expected);
    case IntRead::OutOfRange:
        return QStringLiteral("%1: the integer is out of range (integers here lie in -2^63 .. 2^63-1)").arg(place);
    default:
        return QStringLiteral("%1: expected %2, found %3").arg(place, expected, found);
    }
}

QString typeName(const QJsonValue &v)
{
    switch (v.type()) {
    case QJsonValue::Null: return QStringLiteral("null");
    case QJsonValue::Bool: return QStringLiteral("a boolean");
    case QJsonValue::Double: return QStringLiteral("a number");
    case QJsonValue::String: return QStringLiteral("a string");
    case QJsonValue::Array: return QStringLiteral("an array");
    case QJsonValue::Object: return QStringLiteral("an object");
    default: return QStringLiteral("nothing");
    }
}

bool readOptionalInt(const QJsonObject &o, const QString &key, const QString &place, const QHash<QString, IntRead> &inexact,
                     std::optional<qint64> *out, QString *error)
{
    const QJsonValue v = o.value(key);
    if (v.isUndefined() || v.isNull()) {
        out->reset();
        return true;
    }
    qint64 n = 0;
    const QString at = place + QLatin1Char('.') + key;
    const IntRead r = readInt(v, inexact.value(at, IntRead::Ok), &n);
    if (r != IntRead::Ok) {
        *error = intError(r, at, QStringLiteral("an integer or null"), typeName(v));
        return false;
    }
    *out = n;
    return true;
}

bool readDim(const QJsonValue &value, int index, const QHash<QString, IntRead> &inexact, DimDecl *out, QString *error)
{
    const QString place = QStringLiteral("dims[%1]").arg(index);
    if (!value.isObject()) {
        *error = QStringLiteral("%1: expected an object, found %2").arg(place, typeName(value));
        return false;
    }
    const QJsonObject o = value.toObject();
    const bool derived = o.contains(QLatin1String("root"));
    const QStringList allowed = derived ? QStringList{QStringLiteral("name"), QStringLiteral("root"), QStringLiteral("a"), QStringLiteral("b")}
                                        : QStringList{QStringLiteral("name"), QStringLiteral("min"), QStringLiteral("max")};
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (!allowed.contains(it.key())) {
            *error = derived ? QStringLiteral("%1: unknown key %2 (a derived Dim has name, root, a, b)").arg(place, TerminalText::quoted(it.key()))
                             : QStringLiteral("%1: unknown key %2 (a root Dim has name, min, max)").arg(place, TerminalText::quoted(it.key()));
            return false;
        }
    }
    if (!o.value(QLatin1String("name")).isString()) {
        *error = QStringLiteral("%1.name: expected a string, found %2").arg(place, typeName(o.value(QLatin1String("name"))));
        return false;
    }
    out->name = o.value(QLatin1String("name")).toString();
    if (derived) {
        // An empty root would read as a root Dim (DimDecl::isDerived) that keeps a and b,
        // and writing it would drop them: refuse it as the name it is not.
        const QJsonValue root = o.value(QLatin1String("root"));
        if (!root.isString() || root.toString().isEmpty()) {
            *error = QStringLiteral("%1.root: expected a Dim name, found %2")
                         .arg(place, root.isString() ? QStringLiteral("an empty string") : typeName(root));
            return false;
        }
        out->root = o.value(QLatin1String("root")).toString();
        const QString atA = place + QLatin1String(".a"), atB = place + QLatin1String(".b");
        IntRead r = readInt(o.value(QLatin1String("a")), inexact.value(atA, IntRead::Ok), &out->a);
        if (r != IntRead::Ok || out->a <= 0) {
            *error = r == IntRead::Ok ? QStringLiteral("%1: expected a positive integer").arg(atA)
                                      : intError(r, atA, QStringLiteral("a positive integer"), typeName(o.value(QLatin1String("a"))));
            return false;
        }
        r = readInt(o.value(QLatin1String("b")), inexact.value(atB, IntRead::Ok), &out->b);
        if (r != IntRead::Ok) {
            *error = intError(r, atB, QStringLiteral("an integer"), typeName(o.value(QLatin1String("b"))));
            return false;
        }
        return true;
    }
    return readOptionalInt(o, QStringLiteral("min"), place, inexact, &out->min, error)
        && readOptionalInt(o, QStringLiteral("max"), place, inexact, &out->max, error);
}

// A key path with its unpaired UTF-16 surrogates written as \uXXXX, for errors.
QString withSurrogatesEscaped(const QString &path)
{
    QString out;
    for (int i = 0; i < path.size(); ++i) {
        const QChar c = path.at(i);
        const bool paired = c.isHighSurrogate() ? i + 1 < path.size() && path.at(i + 1).isLowSurrogate()
                                                : !c.isLowSurrogate() || (i > 0 && path.at(i - 1).isHighSurrogate());
        // A surrogate is always four hex digits (D800-DFFF).
        out += paired ? QString(c) : QStringLiteral("\\u") + QString::number(c.unicode(), 16).toUpper();
    }
    return out;
}

// The steps of ConstraintSetJson::read, in the order it runs them. Each returns false
// (or nothing) with *err set at the first problem.

// The document parsed as a JSON object.
std::optional<QJsonObject> parseObject(const QByteArray &json, QString *err)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
    if (pe.error != QJsonParseError::NoError) {
        *err = QStringLiteral("not valid JSON at %1: %2").arg(jsontext::position(json, pe.offset), pe.errorString());
        return std::nullopt;
    }
    if (!doc.isObject()) {
        *err = QStringLiteral("the document is not a JSON object");
        return std::nullopt;
    }
    return doc.object();
}

// "format" and "version" name this document kind, no other top-level key is there, and
// "dims" and "leaves" (each optional) have their types.
bool checkTopLevel(const QJsonObject &root, QString *err)
{
    if (root.value(QLatin1String("format")).toString() != QLatin1String("dimscope.constraints")) {
        *err = QStringLiteral("format: expected \"dimscope.constraints\", found %1")
                   .arg(root.contains(QLatin1String("format")) ? jsontext::valueText(root.value(QLatin1String("format")))
                                                               : QStringLiteral("no \"format\" key"));
        return false;
    }
    qint64 version = 0;
    if (readInt(root.value(QLatin1String("version")), IntRead::Ok, &version) != IntRead::Ok || version != ConstraintSetJson::kVersion) {
        *err = QStringLiteral("version: found %1, this dimscope reads version %2")
                   .arg(root.value(QLatin1String("version")).isDouble() ? QString::number(root.value(QLatin1String("version")).toDouble())
                                                                         : typeName(root.value(QLatin1String("version"))))
                   .arg(ConstraintSetJson::kVersion);
        return false;
    }
    for (auto it = root.begin(); it != root.end(); ++it) {
        static const QStringList known = {QStringLiteral("format"), QStringLiteral("version"), QStringLiteral("dims"), QStringLiteral("leaves")};
        if (!known.contains(it.key())) {
            *err = QStringLiteral("unknown top-level key %1 (expected format, version, dims, leaves)").arg(TerminalText::quoted(it.key()));
            return false;
        }
    }
    const QJsonValue dimsValue = root.value(QLatin1String("dims"));
    if (!dimsValue.isUndefined() && !dimsValue.isArray()) {
        *err = QStringLiteral("dims: expected an array, found %1").arg(typeName(dimsValue));
        return false;
    }
    const QJsonValue leavesValue = root.value(QLatin1String("leaves"));
    if (!leavesValue.isUndefined() && !leavesValue.isObject()) {
        *err = QStringLiteral("leaves: expected an object, found %1").arg(typeName(leavesValue));
        return false;
    }
    return true;
}

// "dims" added to the set, in the document's order.
bool readDims(const QJsonArray &dims, const QHash<QString, IntRead> &inexact, ConstraintSet *set, QString *err)
{
    if (dims.size() > ConstraintSetJson::kMaxDims) {
        *err = QStringLiteral("dims: %1 Dims, more than the %2 a constraint set may have").arg(dims.size()).arg(ConstraintSetJson::kMaxDims);
        return false;
    }
    // Dims are added in two passes so that a derived Dim may precede its root.
    QVector<DimDecl> decls;
    for (int i = 0; i < dims.size(); ++i) {
        DimDecl d;
        if (!readDim(dims[i], i, inexact, &d, err))
            return false;
        decls << d;
    }
    for (int pass = 0; pass < 2; ++pass) {
        for (int i = 0; i < decls.size(); ++i) {
            if (decls[i].isDerived() != (pass == 1))
                continue;
            const QString e = set->addDim(decls[i]);
            if (!e.isEmpty()) {
                *err = QStringLiteral("dims[%1]: %2").arg(i).arg(e);
                return false;
            }
        }
    }
    // Restore the document's order of dims (roots were added first).
    QStringList order;
    order.reserve(decls.size());
    for (const DimDecl &d : decls)
        order << d.name;
    set->setDimOrder(order);
    return true;
}

// One leaf's array of assignments, each "static", "auto", "dynamic" or a Dim of the set.
bool readLeafEntries(const QJsonValue &v, const QString &place, const ConstraintSet &set,
                     QVector<DimAssignment> *entries, QString *err)
{
    if (!v.isArray()) {
        *err = QStringLiteral("%1: expected an array of strings (one per dimension), found %2").arg(place, typeName(v));
        return false;
    }
    const QJsonArray arr = v.toArray();
    if (arr.size() > ConstraintSetJson::kMaxLeafDims) {
        *err = QStringLiteral("%1: %2 dimensions, more than the %3 a tensor may have").arg(place).arg(arr.size()).arg(ConstraintSetJson::kMaxLeafDims);
        return false;
    }
    for (int j = 0; j < arr.size(); ++j) {
        if (!arr[j].isString()) {
            *err = QStringLiteral("%1[%2]: expected \"static\", \"auto\", \"dynamic\" or a Dim name, found %3")
                       .arg(place)
                       .arg(j)
                       .arg(typeName(arr[j]));
            return false;
        }
        const DimAssignment a = DimAssignment::fromString(arr[j].toString());
        if (a.isNamed() && !set.dim(a.dim)) {
            *err = QStringLiteral("%1[%2]: %3 is not a Dim of \"dims\" (nor static, auto, dynamic)").arg(place).arg(j).arg(TerminalText::quoted(a.dim));
            return false;
        }
        *entries << a;
    }
    return true;
}

// "leaves" set on the set in the document's order (read from the text: QJsonObject
// sorts its keys), after its Dims.
bool readLeaves(const QByteArray &json, const QJsonObject &leaves, ConstraintSet *set, QString *err)
{
    if (leaves.size() > ConstraintSetJson::kMaxLeaves) {
        *err = QStringLiteral("leaves: %1 leaves, more than the %2 a constraint set may have").arg(leaves.size()).arg(ConstraintSetJson::kMaxLeaves);
        return false;
    }
    QStringList order = jsontext::memberKeyOrder(json, QStringLiteral("leaves"));
    if (order.size() != leaves.size()) {
        *err = QStringLiteral("leaves: a key path is listed more than once");
        return false;
    }
    for (const QString &path : order) {
        // JSON's \uD800 escapes can spell strings that are no Unicode text: no capture
        // (UTF-8) has such a key path, and writing the set would change it to '?'.
        if (!path.isValidUtf16()) {
            *err = QStringLiteral("leaves['%1']: the key path is not valid Unicode (an unpaired surrogate), "
                                  "so no capture has it").arg(withSurrogatesEscaped(path));
            return false;
        }
        QVector<DimAssignment> entries;
        if (!readLeafEntries(leaves.value(path), QStringLiteral("leaves[%1]").arg(TerminalText::quoted(path)), *set, &entries, err))
            return false;
        set->setLeaf(path, entries);
    }
    return true;
}

std::optional<ConstraintSet> readDocument(const QByteArray &json, QString *err)
{
    const std::optional<QJsonObject> root = parseObject(json, err);
    if (!root || !checkTopLevel(*root, err))
        return std::nullopt;
    ConstraintSet set;
    if (!readDims(root->value(QLatin1String("dims")).toArray(), inexactDimNumbers(json), &set, err)
        || !readLeaves(json, root->value(QLatin1String("leaves")).toObject(), &set, err))
        return std::nullopt;
    return set;
}

} // namespace

std::optional<ConstraintSet> ConstraintSetJson::read(const QByteArray &json, QString *error)
{
    QString scratch;
    QString *err = error ? error : &scratch;
    std::optional<ConstraintSet> set = readDocument(json, err);
    // One line with nothing a terminal acts on, whatever the names quoted from the file.
    if (!set)
        *err = TerminalText::escaped(*err);
    return set;
}

std::optional<ConstraintSet> ConstraintSetJson::readFile(const QString &path, QString *error)
{
    // A FIFO or a device must not hang the reader (RegularFile); a constraint set is small.
    QString why;
    const std::optional<QByteArray> bytes = RegularFile::readAll(path, qint64(64) << 20, &why);
    if (!bytes) {
        if (error)
            *error = QStringLiteral("%1: %2").arg(path, why);
        return std::nullopt;
    }
    QString e;
    auto set = read(*bytes, &e);
    if (!set && error)
        *error = QStringLiteral("%1: %2").arg(path, e);
    return set;
}

bool ConstraintSetJson::writeFile(const QString &path, const ConstraintSet &set, QString *error)
{
    QString why;
    if (!AtomicFile::write(path, write(set), &why)) {
        if (error)
            *error = QStringLiteral("%1: cannot write: %2").arg(path, why);
        return false;
    }
    return true;
}

} // namespace dimscope
