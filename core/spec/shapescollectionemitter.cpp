// SPDX-License-Identifier: GPL-3.0-or-later
#include "spec/shapescollectionemitter.h"

#include "spec/pythonliteral.h"
#include "spec/pythonspecemitter.h"
#include "spec/spectree.h"

namespace dimscope {

namespace {

QString entry(const DimAssignment &a)
{
    switch (a.kind) {
    case DimAssignment::Kind::Auto: return QStringLiteral("Dim.AUTO");
    case DimAssignment::Kind::Dynamic: return QStringLiteral("Dim.DYNAMIC");
    case DimAssignment::Kind::Named: return PythonSpecEmitter::variable(a.dim);
    case DimAssignment::Kind::Static: return QStringLiteral("Dim.STATIC");
    }
    return {};
}

void writeTensors(const SpecNode &n, QString *out)
{
    if (n.kind == SpecNode::Kind::Tensor) {
        if (n.dims.isEmpty())
            return; // not in the collection: static
        QStringList parts;
        for (const auto &d : n.dims)
            parts << QStringLiteral("%1: %2").arg(d.first).arg(entry(d.second));
        *out += QStringLiteral("shapes[call.input_leaf(%1)] = {%2}\n")
                    .arg(PythonLiteral::string(n.path), parts.join(QStringLiteral(", ")));
        return;
    }
    for (const SpecNode &c : n.children)
        writeTensors(c, out);
}

} // namespace

QString ShapesCollectionEmitter::body(const ConstraintSet &set, const SpecNode &tree, const QStringList &used)
{
    QString out = PythonSpecEmitter::declarations(set, used);
    if (!used.isEmpty())
        out += QLatin1Char('\n');
    out += QStringLiteral("# Each tensor of the example call with its dynamic dims; the others stay static.\n"
                          "shapes = torch.export.ShapesCollection()\n");
    writeTensors(tree, &out);
    return out + QStringLiteral("dynamic_shapes = shapes.dynamic_shapes(model, args, kwargs)\n");
}

} // namespace dimscope
