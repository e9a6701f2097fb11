// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/dimintent.h"

#include "capture/capture.h"
#include "constraints/constraintset.h"

#include <QJsonArray>

#include <algorithm>

namespace dimscope {

namespace {

bool wantsDynamic(const QString &entry)
{
    return !entry.isEmpty() && entry != QLatin1String("static") && entry != QLatin1String("auto");
}

void collectLeafPaths(const CallTree &call, DimIntent *intent)
{
    for (const Leaf &leaf : call.leaves)
        intent->leafPaths << leaf.path;
}

// Walks one spec node alongside capture node `n`.
void walk(const CallTree &call, int n, const QJsonValue &spec, const QString &where, DimIntent *intent, QString *error)
{
    if (!error->isEmpty() || n < 0)
        return;
    const TreeNode &node = call.nodes.at(n);
    if (spec.isNull() || spec.isUndefined())
        return; // static / not a tensor
    if (!spec.isObject() || spec.toObject().size() != 1) {
        *error = QStringLiteral("%1: expected one of {\"dict\"|\"list\"|\"tuple\"|\"tensor\": ...} or null").arg(where);
        return;
    }
    const QJsonObject o = spec.toObject();
    const QString tag = o.begin().key();
    const QJsonValue body = o.begin().value();
    if (node.kind == NodeKind::Tensor) {
        if (tag != QLatin1String("tensor") || !body.isObject()) {
            *error = QStringLiteral("%1: the call has a tensor here, the spec a '%2'").arg(where, tag);
            return;
        }
        const Leaf &leaf = call.leaves.at(node.leaf);
        QStringList dims;
        for (int d = 0; d < leaf.shape.size(); ++d)
            dims << QStringLiteral("static");
        const QJsonObject entries = body.toObject();
        for (auto it = entries.begin(); it != entries.end(); ++it) {
            bool ok = false;
            const int d = it.key().toInt(&ok);
            if (!ok || d < 0 || d >= dims.size() || !it.value().isString()) {
                *error = QStringLiteral("%1: bad dimension entry '%2' for a tensor of rank %3")
                             .arg(where, it.key()).arg(dims.size());
                return;
            }
            dims[d] = it.value().toString();
        }
        intent->leafDims.insert(leaf.path, dims);
        return;
    }
    if (isLeafKind(node.kind))
        return;
    if (tag == QLatin1String("dict") && body.isObject()) {
        const QJsonObject children = body.toObject();
        for (int i = 0; i < node.children.size() && i < node.keys.size(); ++i)
            walk(call, node.children.at(i), children.value(node.keys.at(i)),
                 QStringLiteral("%1['%2']").arg(where, node.keys.at(i)), intent, error);
        return;
    }
    if ((tag == QLatin1String("list") || tag == QLatin1String("tuple")) && body.isArray()) {
        const QJsonArray children = body.toArray();
        if (children.size() != node.children.size()) {
            *error = QStringLiteral("%1: the spec has %2 entries, the call %3").arg(where).arg(children.size()).arg(node.children.size());
            return;
        }
        for (int i = 0; i < children.size(); ++i)
            walk(call, node.children.at(i), children.at(i), QStringLiteral("%1[%2]").arg(where).arg(i), intent, error);
        return;
    }
    *error = QStringLiteral("%1: a '%2' node does not fit the call's structure here").arg(where, tag);
}

} // namespace

int DimIntent::wantedDynamicCount() const
{
    int n = 0;
    for (auto it = leafDims.begin(); it != leafDims.end(); ++it)
        for (const QString &e : it.value())
            n += wantsDynamic(e) ? 1 : 0;
    return n;
}

DimIntent DimIntent::withStatic(const QStringList &names) const
{
    DimIntent out = *this;
    for (auto it = out.leafDims.begin(); it != out.leafDims.end(); ++it) {
        const QString &path = it.key();
        const bool under = std::any_of(names.begin(), names.end(), [&path](const QString &name) {
            return path == name || path.startsWith(name + QLatin1Char('.')) || path.startsWith(name + QLatin1Char('['));
        });
        if (under)
            std::fill(it.value().begin(), it.value().end(), QStringLiteral("static"));
    }
    return out;
}

DimIntent DimIntent::fromConstraints(const CallTree &call, const ConstraintSet &set)
{
    DimIntent intent;
    collectLeafPaths(call, &intent);
    for (const Leaf &leaf : call.leaves) {
        if (!leaf.isTensor())
            continue;
        QStringList dims;
        for (int d = 0; d < leaf.shape.size(); ++d)
            dims << set.assignment(leaf.path, d).toString();
        intent.leafDims.insert(leaf.path, dims);
    }
    for (const DimDecl &d : set.dims())
        if (d.isDerived())
            intent.derived.insert(d.name, Pt2DerivedDim{d.root, d.a, d.b});
    return intent;
}

DimIntent DimIntent::fromSpec(const CallTree &call, const QJsonObject &spec, QString *error)
{
    DimIntent intent;
    collectLeafPaths(call, &intent);
    for (const QJsonValue &v : spec.value(QLatin1String("dims")).toArray()) {
        const QJsonObject d = v.toObject();
        const QString root = d.value(QLatin1String("root")).toString();
        if (!root.isEmpty())
            intent.derived.insert(d.value(QLatin1String("name")).toString(),
                                  Pt2DerivedDim{root, d.value(QLatin1String("a")).toInteger(1),
                                                d.value(QLatin1String("b")).toInteger(0)});
    }
    QString err;
    walk(call, call.root, spec.value(QLatin1String("dynamic_shapes")), QStringLiteral("dynamic_shapes"), &intent, &err);
    if (error)
        *error = err;
    return intent;
}

} // namespace dimscope
