// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/alignedtree.h"

#include <algorithm>
#include <climits>

namespace dimscope {

namespace {

// Key path segment of child i of a node, as docs/capture-format.md spells it.
QString childPath(const QString &parentPath, const TreeNode &parent, int i, bool topLevel)
{
    switch (parent.kind) {
    case NodeKind::Dict: {
        const QString key = parent.keys.value(i);
        if (topLevel)
            return key;
        return parentPath + QStringLiteral("['") + key + QStringLiteral("']");
    }
    case NodeKind::List:
    case NodeKind::Tuple:
        return parentPath + QLatin1Char('[') + QString::number(i) + QLatin1Char(']');
    case NodeKind::NamedTuple:
    case NodeKind::Custom:
        return parentPath + QLatin1Char('.') + parent.keys.value(i, QString::number(i));
    default:
        return parentPath;
    }
}

// What the tree shows: list items carry their list's name so that a cache's layers
// read "key_cache[3]" rather than a bare "[3]".
QString childName(const QString &parentName, const TreeNode &parent, int i)
{
    switch (parent.kind) {
    case NodeKind::List:
    case NodeKind::Tuple:
        return parentName + QLatin1Char('[') + QString::number(i) + QLatin1Char(']');
    default:
        return parent.keys.value(i, QString::number(i));
    }
}

} // namespace

AlignedTree AlignedTree::build(const Capture &capture, const Progress &progress)
{
    AlignedTree tree;
    tree.m_callCount = capture.calls.size();
    AlignedNode root;
    root.kind = NodeKind::Dict;
    tree.m_nodes.append(root);
    for (int c = 0; c < capture.calls.size(); ++c) {
        if (progress && !progress(c, capture.calls.size()))
            return AlignedTree();
        const CallTree &inputs = capture.calls.at(c).inputs;
        if (inputs.isEmpty() || inputs.root >= inputs.nodes.size())
            continue;
        tree.merge(inputs, c, capture.calls.size(), inputs.root, 0);
    }
    tree.orderBySignature(capture.signature);
    for (const AlignedNode &n : std::as_const(tree.m_nodes))
        tree.m_leafCount += n.isLeaf() ? 1 : 0;
    if (progress)
        progress(capture.calls.size(), capture.calls.size());
    return tree;
}

// Arguments appear in forward's order, whichever call first had them (the prefill
// lacks the cache, so merging alone would list past_key_values last).
void AlignedTree::orderBySignature(const QVector<Parameter> &signature)
{
    QHash<QString, int> position;
    for (int i = 0; i < signature.size(); ++i)
        position.insert(signature.at(i).name, i);
    QVector<int> &top = m_nodes[0].children;
    std::stable_sort(top.begin(), top.end(), [&](int a, int b) {
        return position.value(m_nodes.at(a).name, INT_MAX) < position.value(m_nodes.at(b).name, INT_MAX);
    });
    for (int r = 0; r < top.size(); ++r)
        m_nodes[top.at(r)].row = r;
}

int AlignedTree::addChild(int parent, const QString &name, const QString &path, const TreeNode &src)
{
    AlignedNode n;
    n.name = name;
    n.path = path;
    n.kind = src.kind;
    n.typeName = src.typeName();
    n.parent = parent;
    n.row = m_nodes[parent].children.size();
    const int index = m_nodes.size();
    m_nodes.append(n);
    m_nodes[parent].children.append(index);
    m_byPath.insert(path, index);
    return index;
}

void AlignedTree::merge(const CallTree &tree, int callIndex, int callCount, int srcNode, int dstNode)
{
    const TreeNode &src = tree.nodes.at(srcNode);
    AlignedNode &dst = m_nodes[dstNode];
    if (src.leaf >= 0 && isLeafKind(src.kind)) {
        if (dst.leafInCall.isEmpty())
            dst.leafInCall.fill(-1, callCount);
        dst.leafInCall[callIndex] = src.leaf;
        // A None in one call and a tensor in another: show the tensor.
        if (dst.kind == NodeKind::None || !isLeafKind(dst.kind))
            dst.kind = src.kind;
        return;
    }
    if (isLeafKind(dst.kind) && dst.leafInCall.isEmpty())
        dst.kind = src.kind; // container seen first here
    if (dst.typeName.isEmpty())
        dst.typeName = src.typeName();
    dst.childCount = qMax(dst.childCount, int(src.children.size()));
    const bool topLevel = dstNode == 0;
    const QString parentPath = dst.path;
    const QString parentName = dst.name;
    for (int i = 0; i < src.children.size(); ++i) {
        const int child = src.children.at(i);
        if (child < 0 || child >= tree.nodes.size())
            continue; // the reader validates; stay safe on a hand-built tree
        const QString path = childPath(parentPath, src, i, topLevel);
        int target = m_byPath.value(path, -1);
        if (target < 0)
            target = addChild(dstNode, childName(parentName, src, i), path, tree.nodes.at(child));
        merge(tree, callIndex, callCount, child, target);
    }
}

const Leaf *AlignedTree::leafIn(const Capture &capture, const AlignedNode &node, int call)
{
    if (call < 0 || call >= node.leafInCall.size() || call >= capture.calls.size())
        return nullptr;
    const int leaf = node.leafInCall.at(call);
    const QVector<Leaf> &leaves = capture.calls.at(call).inputs.leaves;
    return leaf >= 0 && leaf < leaves.size() ? &leaves.at(leaf) : nullptr;
}

} // namespace dimscope
