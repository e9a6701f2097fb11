// SPDX-License-Identifier: GPL-3.0-or-later
#include "spec/spectree.h"

#include "capture/capture.h"
#include "constraints/constraintset.h"
#include "spec/examplecall.h"
#include "inference/shapetable.h"

#include <QSet>

namespace dimscope {

namespace {

SpecNode buildNode(const CallTree &tree, int index, const ConstraintSet &set)
{
    const TreeNode &n = tree.nodes[index];
    SpecNode s;
    switch (n.kind) {
    case NodeKind::Dict:
        s.kind = SpecNode::Kind::Dict;
        s.keys = n.keys;
        break;
    case NodeKind::List:
    case NodeKind::Custom: // torch expects the list of the flattened children
        s.kind = SpecNode::Kind::List;
        break;
    case NodeKind::Tuple:
    case NodeKind::NamedTuple:
        s.kind = SpecNode::Kind::Tuple;
        break;
    case NodeKind::Tensor: {
        s.kind = SpecNode::Kind::Tensor;
        const Leaf &leaf = tree.leaves[n.leaf];
        s.path = leaf.path;
        if (const LeafConstraint *lc = set.leaf(leaf.path)) {
            for (int d = 0; d < leaf.shape.size() && d < lc->dims.size(); ++d) {
                if (!lc->dims[d].isStatic())
                    s.dims.append({d, lc->dims[d]});
            }
        }
        return s;
    }
    default:
        return s; // None for every non-tensor leaf
    }
    for (int c : n.children)
        s.children << buildNode(tree, c, set);
    return s;
}

void collect(const SpecNode &n, QSet<QString> *out)
{
    for (const auto &d : n.dims) {
        if (d.second.isNamed())
            out->insert(d.second.dim);
    }
    for (const SpecNode &c : n.children)
        collect(c, out);
}

} // namespace

int SpecTree::resolveCall(const Capture &capture, const ConstraintSet &set, int call)
{
    if (call >= 0 && call < capture.calls.size())
        return call;
    return chooseExampleCall(ShapeTable(capture), set);
}

SpecNode SpecTree::build(const Capture &capture, const ConstraintSet &set, int call)
{
    SpecNode top;
    top.kind = SpecNode::Kind::Dict;
    if (capture.calls.isEmpty())
        return top;
    const CapturedCall &cc = capture.calls[resolveCall(capture, set, call)];
    // Inputs and constant kwargs (passed to export as None-spec'd kwargs), in signature
    // order; `**kwargs` entries are nested under the VAR_KEYWORD parameter's name, as
    // torch binds them.
    QStringList inputKeys;
    QVector<int> inputNodes;
    if (!cc.inputs.isEmpty()) {
        const TreeNode &root = cc.inputs.nodes[cc.inputs.root];
        inputKeys = root.keys;
        inputNodes = root.children;
    }
    QSet<QString> named;
    QString varKeyword;
    auto add = [&](SpecNode *into, const QString &key) {
        const int i = inputKeys.indexOf(key);
        if (i >= 0) {
            into->keys << key;
            into->children << buildNode(cc.inputs, inputNodes[i], set);
        } else if (cc.constantKwargs.contains(key)) {
            into->keys << key;
            into->children << SpecNode{};
        }
    };
    for (const Parameter &p : capture.signature) {
        named.insert(p.name);
        if (p.kind == QLatin1String("VAR_KEYWORD"))
            varKeyword = p.name;
        else
            add(&top, p.name);
    }
    SpecNode extras;
    extras.kind = SpecNode::Kind::Dict;
    QStringList others = inputKeys;
    for (auto it = cc.constantKwargs.begin(); it != cc.constantKwargs.end(); ++it) {
        if (!others.contains(it.key()))
            others << it.key();
    }
    for (const QString &k : others) {
        if (!named.contains(k))
            add(varKeyword.isEmpty() ? &top : &extras, k);
    }
    if (!extras.keys.isEmpty()) {
        top.keys << varKeyword;
        top.children << extras;
    }
    return top;
}

QStringList SpecTree::usedDims(const SpecNode &root, const ConstraintSet &set)
{
    QSet<QString> used;
    collect(root, &used);
    for (const QString &n : QStringList(used.begin(), used.end())) {
        if (const DimDecl *d = set.dim(n); d && d->isDerived())
            used.insert(d->root);
    }
    QStringList out;
    for (const DimDecl &d : set.dims()) {
        if (used.contains(d.name))
            out << d.name;
    }
    return out;
}

} // namespace dimscope
