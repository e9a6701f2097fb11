#include "shapes/jsonspecemitter.h"

#include "capture/capture.h"
#include "shapes/constraintset.h"
#include "shapes/constraintsetjson.h"
#include "shapes/jsontext.h"
#include "shapes/specnodewriter.h"
#include "shapes/spectree.h"

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

} // namespace

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
            out += QLatin1String("    ") + ConstraintSetJson::dimObject(*set.dim(used[i])) + (i + 1 < used.size() ? ",\n" : "\n");
        out += QLatin1String("  ],\n");
    }
    out += QLatin1String("  \"dynamic_shapes\": ");
    writeSpecNode(tree, kJsonSyntax, 2, &out);
    out += QLatin1String("\n}\n");
    return out.toUtf8();
}

} // namespace dimscope
