// SPDX-License-Identifier: GPL-3.0-or-later
#include "spec/additionalinputsemitter.h"

#include "capture/capture.h"
#include "spec/spectree.h"
#include "spec/torchfeatures.h"
#include "util/terminaltext.h"

#include <QHash>
#include <QSet>

namespace dimscope {

namespace {

// torch.export.AdditionalInputs needs every call flattened like the example call.
bool sameStructure(const CapturedCall &a, const CapturedCall &b)
{
    if (a.inputs.leaves.size() != b.inputs.leaves.size() || a.constantKwargs != b.constantKwargs)
        return false;
    for (int i = 0; i < a.inputs.leaves.size(); ++i) {
        const Leaf &x = a.inputs.leaves[i];
        const Leaf &y = b.inputs.leaves[i];
        if (x.path != y.path || x.kind != y.kind || x.shape.size() != y.shape.size())
            return false;
    }
    return true;
}

QString indexList(const QVector<int> &calls)
{
    QStringList parts;
    for (int c : calls)
        parts << QString::number(c);
    return parts.join(QStringLiteral(", "));
}

void collectTensors(const SpecNode &n, QVector<const SpecNode *> *out)
{
    if (n.kind == SpecNode::Kind::Tensor)
        out->append(&n);
    for (const SpecNode &c : n.children)
        collectTensors(c, out);
}

// The named Dims of `tree` whose every dimension has one size in all of `calls`, in
// order of first use.
QStringList steadyDims(const Capture &capture, const SpecNode &tree, const QVector<int> &calls)
{
    QVector<const SpecNode *> tensors;
    collectTensors(tree, &tensors);
    QVector<QHash<QString, const Leaf *>> byPath(calls.size());
    for (int i = 0; i < calls.size(); ++i) {
        for (const Leaf &leaf : capture.calls[calls[i]].inputs.leaves)
            byPath[i].insert(leaf.path, &leaf);
    }
    QStringList order;
    QSet<QString> varies;
    for (const SpecNode *t : tensors) {
        for (const auto &d : t->dims) {
            if (!d.second.isNamed())
                continue;
            if (!order.contains(d.second.dim))
                order << d.second.dim;
            QSet<qint64> sizes;
            for (const auto &leaves : byPath) {
                if (const Leaf *leaf = leaves.value(t->path); leaf && d.first < leaf->shape.size())
                    sizes.insert(leaf->shape[d.first]);
            }
            if (sizes.size() > 1)
                varies.insert(d.second.dim);
        }
    }
    QStringList steady;
    for (const QString &name : order) {
        if (!varies.contains(name))
            steady << TerminalText::field(name);
    }
    return steady;
}

} // namespace

QString AdditionalInputsEmitter::body(const Capture &capture, const SpecNode &tree, int exampleCall, const TorchFeatures &torch)
{
    QVector<int> added, leftOut;
    for (int i = 0; i < capture.calls.size(); ++i) {
        if (i != exampleCall)
            (sameStructure(capture.calls[i], capture.calls[exampleCall]) ? added : leftOut) << i;
    }
    QString out;
    if (!torch.hasAdditionalInputs().value_or(false))
        out += QStringLiteral("if not hasattr(torch.export, \"AdditionalInputs\"):\n"
                              "    raise SystemExit(f\"torch {torch.__version__} has no torch.export.AdditionalInputs (2.9 and later \"\n"
                              "                     \"have it): choose another dialect\")\n\n");
    out += QStringLiteral("# The other captured calls: torch makes a dim dynamic where their sizes differ from the\n"
                          "# example call's, static where they never do, and checks each call against the program.\n");
    const QStringList steady = steadyDims(capture, tree, QVector<int>{exampleCall} + added);
    if (!steady.isEmpty())
        out += QStringLiteral("# Never varies among the calls, so static here (the named dialect keeps it dynamic): %1\n")
                   .arg(steady.join(QStringLiteral(", ")));
    if (!leftOut.isEmpty())
        out += QStringLiteral("# Left out, their inputs have another structure than call %1's: call(s) %2\n")
                   .arg(exampleCall)
                   .arg(indexList(leftOut));
    out += QStringLiteral("additional = torch.export.AdditionalInputs()\n");
    if (!added.isEmpty())
        out += QStringLiteral("for index in [%1]:\n    additional.add(*capture.calls[index].call_arguments())\n").arg(indexList(added));
    return out + QStringLiteral("dynamic_shapes = additional\n");
}

} // namespace dimscope
