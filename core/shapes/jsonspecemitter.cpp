#include "shapes/jsonspecemitter.h"

#include "capture/capture.h"
#include "shapes/constraintset.h"
#include "shapes/constraintsetjson.h"
#include "shapes/jsontext.h"
#include "shapes/spectree.h"

namespace dimscope {

namespace {

void write(const SpecNode &n, int indent, QString *out)
{
    switch (n.kind) {
    case SpecNode::Kind::None:
        *out += QLatin1String("null");
        return;
    case SpecNode::Kind::Tensor: {
        QStringList parts;
        for (const auto &d : n.dims)
            parts << QStringLiteral("\"%1\": %2").arg(d.first).arg(jsontext::quote(d.second.toString()));
        *out += QLatin1String("{\"tensor\": {") + parts.join(QStringLiteral(", ")) + QLatin1String("}}");
        return;
    }
    default:
        break;
    }
    const bool dict = n.kind == SpecNode::Kind::Dict;
    const QString kind = dict ? QStringLiteral("dict") : n.kind == SpecNode::Kind::List ? QStringLiteral("list") : QStringLiteral("tuple");
    *out += QStringLiteral("{\"%1\": ").arg(kind) + (dict ? QLatin1Char('{') : QLatin1Char('['));
    if (!n.children.isEmpty()) {
        *out += QLatin1Char('\n');
        const QString pad(indent + 2, QLatin1Char(' '));
        for (int i = 0; i < n.children.size(); ++i) {
            *out += pad;
            if (dict)
                *out += jsontext::quote(n.keys[i]) + QLatin1String(": ");
            write(n.children[i], indent + 2, out);
            *out += i + 1 < n.children.size() ? QLatin1String(",\n") : QLatin1String("\n");
        }
        *out += QString(indent, QLatin1Char(' '));
    }
    *out += QString(dict ? QLatin1Char('}') : QLatin1Char(']')) + QLatin1Char('}');
}

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
    write(tree, 2, &out);
    out += QLatin1String("\n}\n");
    return out.toUtf8();
}

} // namespace dimscope
