// SPDX-License-Identifier: GPL-3.0-or-later
#include "pt2/pt2treespec.h"

#include "json/jsoninteger.h"
#include "pt2/pt2interfacejson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace dimscope {

namespace {

constexpr int kMaxDepth = 200; // a spec nested deeper than this is not a real model's

// The path segment of a dict key; nullopt for a number that is no 64-bit integer
// (1e21, 1.5): a cast would make up a key (and is undefined past the range), and a
// capture's keys are never such numbers anyway.
std::optional<QString> segmentForKey(const QJsonValue &key)
{
    if (key.isString())
        return QStringLiteral("['%1']").arg(key.toString());
    if (key.isDouble()) {
        const std::optional<qint64> i = exactInteger(key);
        if (!i)
            return std::nullopt;
        return QStringLiteral("[%1]").arg(*i);
    }
    return QStringLiteral("[%1]").arg(QString::fromUtf8(QJsonDocument(QJsonArray{key}).toJson(QJsonDocument::Compact)));
}

// What reading a spec may cost. Its text is one string of the JSON the reader bounds,
// and so are the contexts inside it (JSON strings again), whose elements no outer count
// sees; and a key path repeats every key above its leaf, so a deep spec of long keys
// with many leaves would make paths far longer than the spec.
struct Budget {
    qint64 elements;  // JSON elements still allowed in DOMs (the spec and its contexts)
    qint64 pathChars; // characters of key paths still allowed
};

bool spend(Budget &budget, const QByteArray &json, QString *error)
{
    budget.elements -= Pt2InterfaceJson::countElements(json.constBegin(), json.constEnd());
    if (budget.elements >= 0)
        return true;
    *error = QStringLiteral("in_spec and its contexts hold more than %1 JSON elements").arg(Pt2TreeSpec::kMaxElements);
    return false;
}

// context is itself a JSON string for containers ("[\"a\", \"b\"]", "null").
QJsonValue decodeContext(const QJsonValue &context, Budget &budget, QString *error)
{
    if (!context.isString())
        return context;
    QJsonParseError pe;
    const QByteArray text = "[" + context.toString().toUtf8() + "]";
    if (!spend(budget, text, error))
        return QJsonValue(QJsonValue::Undefined);
    const QJsonDocument doc = QJsonDocument::fromJson(text, &pe);
    if (pe.error != QJsonParseError::NoError || !doc.isArray() || doc.array().size() != 1)
        return QJsonValue(QJsonValue::Undefined);
    return doc.array().first();
}

bool walk(const QJsonValue &node, const QString &path, int depth, Budget &budget, QStringList *out, QString *error)
{
    if (depth > kMaxDepth) {
        *error = QStringLiteral("in_spec is nested more than %1 levels").arg(kMaxDepth);
        return false;
    }
    budget.pathChars -= path.size();
    if (budget.pathChars < 0) {
        *error = QStringLiteral("in_spec's key paths would be longer than 8 times the spec");
        return false;
    }
    if (!node.isObject()) {
        *error = QStringLiteral("in_spec node at '%1' is not an object").arg(path);
        return false;
    }
    const QJsonObject o = node.toObject();
    const QJsonValue children = o.value(QLatin1String("children_spec"));
    if (!children.isArray()) {
        *error = QStringLiteral("in_spec node at '%1' has no children_spec list").arg(path);
        return false;
    }
    const QJsonValue type = o.value(QLatin1String("type"));
    const QJsonArray kids = children.toArray();
    if (type.isNull() || type.isUndefined()) {
        if (!kids.isEmpty()) {
            *error = QStringLiteral("in_spec leaf at '%1' has children").arg(path);
            return false;
        }
        out->append(path);
        return true;
    }
    if (!type.isString()) {
        *error = QStringLiteral("in_spec node at '%1' has a non-string type").arg(path);
        return false;
    }
    const QString typeName = type.toString();
    const QJsonValue context = decodeContext(o.value(QLatin1String("context")), budget, error);
    if (budget.elements < 0)
        return false;
    const QJsonArray keys = context.isArray() ? context.toArray() : QJsonArray();
    const bool isDict = typeName == QLatin1String("builtins.dict") || typeName.endsWith(QLatin1String("OrderedDict"))
        || typeName.endsWith(QLatin1String("defaultdict"));
    const bool isSequence = typeName == QLatin1String("builtins.list") || typeName == QLatin1String("builtins.tuple");
    for (int i = 0; i < kids.size(); ++i) {
        QString segment;
        if (isSequence) {
            segment = QStringLiteral("[%1]").arg(i);
        } else if (isDict && keys.size() == kids.size()) {
            const std::optional<QString> keySegment = segmentForKey(keys.at(i));
            if (!keySegment) {
                *error = QStringLiteral("in_spec dict at '%1': key %2 is %3, not a 64-bit integer")
                             .arg(path).arg(i).arg(keys.at(i).toDouble());
                return false;
            }
            segment = *keySegment;
        } else if (keys.size() == kids.size() && keys.at(i).isString()) {
            // custom classes and namedtuple-like nodes whose context lists child names
            segment = QLatin1Char('.') + keys.at(i).toString();
        } else {
            segment = QStringLiteral("[%1]").arg(i);
        }
        if (!walk(kids.at(i), path + segment, depth + 1, budget, out, error))
            return false;
    }
    return true;
}

QString tidy(const QString &piece)
{
    static const QRegularExpression nonAlnum(QStringLiteral("[^a-zA-Z0-9]"));
    QString s = piece;
    s.replace(nonAlnum, QStringLiteral("_"));
    return s.toLower();
}

} // namespace

std::optional<QStringList> Pt2TreeSpec::leafPaths(const QString &inSpec, const QStringList &forwardArgNames,
                                                  QString *error)
{
    Budget budget{kMaxElements, 8 * qint64(inSpec.size()) + 1024};
    const QByteArray text = inSpec.toUtf8();
    if (!spend(budget, text, error))
        return std::nullopt;
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(text, &pe);
    if (pe.error != QJsonParseError::NoError) {
        *error = QStringLiteral("in_spec is not JSON: %1 at offset %2").arg(pe.errorString()).arg(pe.offset);
        return std::nullopt;
    }
    const QJsonArray top = doc.array();
    if (!doc.isArray() || top.size() != 2 || !top.at(0).isDouble()) {
        *error = QStringLiteral("in_spec is not [version, tree]");
        return std::nullopt;
    }
    if (exactInteger(top.at(0)) != 1) {
        *error = QStringLiteral("in_spec has TreeSpec version %1; this reader knows version 1").arg(top.at(0).toDouble());
        return std::nullopt;
    }
    const QJsonObject root = top.at(1).toObject();
    const QJsonArray rootKids = root.value(QLatin1String("children_spec")).toArray();
    // Exported programs take (args, kwargs); anything else is walked as is.
    if (root.value(QLatin1String("type")).toString() != QLatin1String("builtins.tuple") || rootKids.size() != 2) {
        QStringList out;
        if (!walk(top.at(1), QString(), 0, budget, &out, error))
            return std::nullopt;
        return out;
    }
    QStringList out;
    const QJsonObject args = rootKids.at(0).toObject();
    const QJsonArray argKids = args.value(QLatin1String("children_spec")).toArray();
    for (int i = 0; i < argKids.size(); ++i) {
        const QString name = i < forwardArgNames.size() ? forwardArgNames.at(i) : QStringLiteral("args[%1]").arg(i);
        if (!walk(argKids.at(i), name, 1, budget, &out, error))
            return std::nullopt;
    }
    const QJsonObject kwargs = rootKids.at(1).toObject();
    const QJsonArray kwKids = kwargs.value(QLatin1String("children_spec")).toArray();
    const QJsonValue kwContext = decodeContext(kwargs.value(QLatin1String("context")), budget, error);
    if (budget.elements < 0)
        return std::nullopt;
    const QJsonArray kwKeys = kwContext.toArray();
    if (kwKeys.size() != kwKids.size()) {
        *error = QStringLiteral("in_spec kwargs have %1 keys for %2 children").arg(kwKeys.size()).arg(kwKids.size());
        return std::nullopt;
    }
    for (int i = 0; i < kwKids.size(); ++i) {
        // Keyword names are strings; a number here would become an empty name.
        if (!kwKeys.at(i).isString()) {
            *error = QStringLiteral("in_spec kwargs key %1 is not a string").arg(i);
            return std::nullopt;
        }
        if (!walk(kwKids.at(i), kwKeys.at(i).toString(), 1, budget, &out, error))
            return std::nullopt;
    }
    return out;
}

QString Pt2TreeSpec::placeholderName(const QString &path)
{
    // Segments: leading name, ".name", "[N]", "['key']" / "[\"key\"]".
    QStringList pieces;
    int i = 0;
    const int n = path.size();
    QString current;
    auto flush = [&]() {
        if (!current.isEmpty())
            pieces << tidy(current);
        current.clear();
    };
    while (i < n) {
        const QChar c = path.at(i);
        if (c == QLatin1Char('.')) {
            flush();
            ++i;
        } else if (c == QLatin1Char('[')) {
            flush();
            const int close = path.indexOf(QLatin1Char(']'), i);
            QString inner = path.mid(i + 1, (close < 0 ? n : close) - i - 1);
            if (inner.size() >= 2 && (inner.startsWith(QLatin1Char('\'')) || inner.startsWith(QLatin1Char('"'))))
                inner = inner.mid(1, inner.size() - 2);
            pieces << tidy(inner);
            i = close < 0 ? n : close + 1;
        } else {
            current += c;
            ++i;
        }
    }
    flush();
    return pieces.join(QLatin1Char('_'));
}

} // namespace dimscope
