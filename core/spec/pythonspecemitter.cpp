// SPDX-License-Identifier: GPL-3.0-or-later
#include "spec/pythonspecemitter.h"

#include "capture/capture.h"
#include "constraints/constraintset.h"
#include "json/jsontext.h"
#include "spec/specnodewriter.h"
#include "spec/spectree.h"
#include "util/terminaltext.h"

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


QLatin1String openText(SpecNode::Kind kind)
{
    return kind == SpecNode::Kind::Dict ? QLatin1String("{") : kind == SpecNode::Kind::List ? QLatin1String("[") : QLatin1String("(");
}

QLatin1String closeText(SpecNode::Kind kind)
{
    return kind == SpecNode::Kind::Dict ? QLatin1String("}") : kind == SpecNode::Kind::List ? QLatin1String("]") : QLatin1String(")");
}

// A trailing comma after every child also makes a 1-tuple a tuple.
const SpecSyntax kPythonSyntax{QLatin1String("None"), 4, true, &PythonSpecEmitter::tensorDims, &openText, &closeText};

QString declaration(const DimDecl &d)
{
    const auto variable = &PythonSpecEmitter::variable;
    if (d.isDerived()) {
        QString expr = d.a == 1 ? variable(d.root) : QStringLiteral("%1 * %2").arg(d.a).arg(variable(d.root));
        if (d.b > 0)
            expr += QStringLiteral(" + %1").arg(d.b);
        else if (d.b < 0)
            expr += QStringLiteral(" - %1").arg(-d.b);
        return QStringLiteral("%1 = %2\n").arg(variable(d.name), expr);
    }
    QString args = jsontext::quote(d.name);
    if (d.min)
        args += QStringLiteral(", min=%1").arg(*d.min);
    if (d.max)
        args += QStringLiteral(", max=%1").arg(*d.max);
    return QStringLiteral("%1 = Dim(%2)\n").arg(variable(d.name), args);
}

} // namespace

// Dim names that would shadow what the snippet (or SpecScript's script) itself uses get
// a prefix.
QString PythonSpecEmitter::variable(const QString &dim)
{
    // What SpecScript's scripts name besides the Dims.
    static const QStringList taken = QStringLiteral("torch Dim dynamic_shapes dimscope model capture call args kwargs "
                                                    "program shapes additional bounded index")
                                         .split(QLatin1Char(' '));
    if (taken.contains(dim))
        return QStringLiteral("dim_") + dim;
    return dim;
}

QString PythonSpecEmitter::declarations(const ConstraintSet &set, const QStringList &used)
{
    QString roots, derived;
    for (const QString &name : used) {
        const DimDecl *d = set.dim(name);
        (d->isDerived() ? derived : roots) += declaration(*d);
    }
    return roots + derived;
}

QString PythonSpecEmitter::assignment(const SpecNode &tree)
{
    QString out = QStringLiteral("dynamic_shapes = ");
    writeSpecNode(tree, kPythonSyntax, 0, &out);
    return out + QLatin1Char('\n');
}

QString PythonSpecEmitter::generate(const Capture &capture, const ConstraintSet &set, int exampleCall)
{
    const int call = capture.calls.isEmpty() ? 0 : SpecTree::resolveCall(capture, set, exampleCall);
    const SpecNode tree = SpecTree::build(capture, set, call);
    const QStringList used = SpecTree::usedDims(tree, set);

    // The class name comes from the capture: escaped, a line feed in it cannot end the
    // comment and start a line of code in the generated file.
    QString out = QStringLiteral("# dynamic_shapes written by dimscope%1, example call %2\n")
                      .arg(capture.modelClass.isEmpty() ? QString() : QStringLiteral(" for ") + TerminalText::field(capture.modelClass))
                      .arg(call);
    out += QLatin1String("import torch\nfrom torch.export import Dim\n\n");
    if (!used.isEmpty())
        out += declarations(set, used) + QLatin1Char('\n');
    return out + assignment(tree);
}

QString PythonSpecEmitter::tensorDims(const SpecNode &tensor)
{
    QStringList parts;
    for (const auto &d : tensor.dims)
        parts << QStringLiteral("%1: %2").arg(d.first).arg(entry(d.second));
    return QLatin1Char('{') + parts.join(QStringLiteral(", ")) + QLatin1Char('}');
}

} // namespace dimscope
