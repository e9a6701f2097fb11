// SPDX-License-Identifier: GPL-3.0-or-later
#include "spec/jsonspecemitter.h"

#include "capture/capture.h"
#include "constraints/constraintset.h"
#include "constraints/constraintsetjson.h"
#include "json/jsontext.h"
#include "spec/specnodewriter.h"
#include "spec/spectree.h"

#include <QJsonArray>

namespace dimscope {

namespace {

QString tensorText(const SpecNode &n)
{
    QStringList parts;
    for (const auto &d : n.dims)
        parts << QStringLiteral("\"%1\": %2").arg(d.first).arg(jsontext::quote(d.second.toString()));
    return QLatin1String("{\"tensor\": {") + parts.join(QStringLiteral(", ")) + QLatin1String("}}");
}

QLatin1String openText(SpecNode::Kind kind)
{
    switch (kind) {
    case SpecNode::Kind::Dict: return QLatin1String("{\"dict\": {");
    case SpecNode::Kind::List: return QLatin1String("{\"list\": [");
    default: return QLatin1String("{\"tuple\": [");
    }
}

QLatin1String closeText(SpecNode::Kind kind)
{
    return kind == SpecNode::Kind::Dict ? QLatin1String("}}") : QLatin1String("]}");
}

const SpecSyntax kJsonSyntax{QLatin1String("null"), 2, false, &tensorText, &openText, &closeText};

QJsonValue specValue(const SpecNode &n)
{
    switch (n.kind) {
    case SpecNode::Kind::None: return QJsonValue(QJsonValue::Null);
    case SpecNode::Kind::Tensor: {
        QJsonObject dims;
        for (const auto &d : n.dims)
            dims.insert(QString::number(d.first), d.second.toString());
        return QJsonObject{{QStringLiteral("tensor"), dims}};
    }
    case SpecNode::Kind::Dict: {
        QJsonObject entries;
        for (int i = 0; i < n.keys.size(); ++i)
            entries.insert(n.keys.at(i), specValue(n.children.at(i)));
        return QJsonObject{{QStringLiteral("dict"), entries}};
    }
    case SpecNode::Kind::List:
    case SpecNode::Kind::Tuple: {
        QJsonArray items;
        for (const SpecNode &c : n.children)
            items.append(specValue(c));
        return QJsonObject{{n.kind == SpecNode::Kind::List ? QStringLiteral("list") : QStringLiteral("tuple"), items}};
    }
    }
    return QJsonValue(QJsonValue::Null);
}

QJsonObject dimValue(const DimDecl &d)
{
    // qint64, not double: bounds past 2^53 stay exact.
    const auto bound = [](const std::optional<qint64> &v) { return v ? QJsonValue(*v) : QJsonValue(); };
    if (d.isDerived())
        return {{QStringLiteral("name"), d.name}, {QStringLiteral("root"), d.root},
                {QStringLiteral("a"), QJsonValue(d.a)}, {QStringLiteral("b"), QJsonValue(d.b)}};
    return {{QStringLiteral("name"), d.name}, {QStringLiteral("min"), bound(d.min)}, {QStringLiteral("max"), bound(d.max)}};
}

} // namespace

QJsonObject JsonSpecEmitter::document(const Capture &capture, const ConstraintSet &set, int exampleCall)
{
    const SpecNode tree = SpecTree::build(capture, set, exampleCall);
    QJsonArray dims;
    for (const QString &name : SpecTree::usedDims(tree, set))
        dims.append(dimValue(*set.dim(name)));
    return {{QStringLiteral("format"), QStringLiteral("dimscope.dynamic_shapes")},
            {QStringLiteral("version"), kVersion},
            {QStringLiteral("dims"), dims},
            {QStringLiteral("dynamic_shapes"), specValue(tree)}};
}

QByteArray JsonSpecEmitter::generate(const Capture &capture, const ConstraintSet &set, int exampleCall)
{
    const SpecNode tree = SpecTree::build(capture, set, exampleCall);
    const QStringList used = SpecTree::usedDims(tree, set);
    QString out = QStringLiteral("{\n  \"format\": \"dimscope.dynamic_shapes\",\n  \"version\": %1,\n").arg(kVersion);
    if (used.isEmpty()) {
        out += QLatin1String("  \"dims\": [],\n");
    } else {
        out += QLatin1String("  \"dims\": [\n");
        for (int i = 0; i < used.size(); ++i)
            out += QLatin1String("    ") + ConstraintSetJson::dimObject(*set.dim(used[i])) + QLatin1String(i + 1 < used.size() ? ",\n" : "\n");
        out += QLatin1String("  ],\n");
    }
    out += QLatin1String("  \"dynamic_shapes\": ");
    writeSpecNode(tree, kJsonSyntax, 2, &out);
    out += QLatin1String("\n}\n");
    return out.toUtf8();
}

} // namespace dimscope
