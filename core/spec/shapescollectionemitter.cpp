// SPDX-License-Identifier: GPL-3.0-or-later
#include "spec/shapescollectionemitter.h"

#include "spec/pythonliteral.h"
#include "spec/pythonspecemitter.h"
#include "spec/spectree.h"

namespace dimscope {

namespace {

void writeTensors(const SpecNode &n, QString *out)
{
    if (n.kind == SpecNode::Kind::Tensor) {
        if (n.dims.isEmpty())
            return; // not in the collection: static
        *out += QStringLiteral("shapes[call.input_leaf(%1)] = %2\n")
                    .arg(PythonLiteral::string(n.path), PythonSpecEmitter::tensorDims(n));
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
