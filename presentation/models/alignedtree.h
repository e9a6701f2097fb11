// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"

#include <QHash>
#include <QString>
#include <QVector>

#include <functional>

namespace dimscope {

// One node of the inputs tree, merged over every captured call by key path: a leaf
// that only some calls have (a missing optional input) is still one node, absent in
// the other calls.
struct AlignedNode {
    QString name;          // what the tree shows: "input_ids", "key_cache", "key_cache[3]"
    QString path;          // key path, capture-format spelling ("past_key_values.key_cache[3]")
    NodeKind kind = NodeKind::None;
    QString typeName;      // custom / namedtuple class name
    int parent = -1;
    int row = 0;           // position among the parent's children
    QVector<int> children;
    QVector<int> leafInCall; // leaf nodes: per call, index into calls[c].inputs.leaves, -1 when absent
    int childCount = 0;    // containers: most children seen in one call (list length)
    bool isLeaf() const { return isLeafKind(kind); }
};

// The merged input tree of a capture. Built once (off the GUI thread for large
// captures), then shared read-only by the models.
class AlignedTree
{
public:
    // Called every few hundred nodes with (calls done, calls total); returning false
    // cancels the build, which then returns an empty tree.
    using Progress = std::function<bool(int, int)>;

    static AlignedTree build(const Capture &capture, const Progress &progress = {});

    bool isEmpty() const { return m_nodes.size() <= 1; }
    int callCount() const { return m_callCount; }
    int leafCount() const { return m_leafCount; }
    const QVector<AlignedNode> &nodes() const { return m_nodes; }
    const AlignedNode &node(int i) const { return m_nodes.at(i); }
    // -1 when no node has that key path.
    int nodeForPath(const QString &path) const { return m_byPath.value(path, -1); }

    // The per-call leaf (nullptr when absent in that call).
    static const Leaf *leafIn(const Capture &capture, const AlignedNode &node, int call);

private:
    int addChild(int parent, const QString &name, const QString &path, const TreeNode &src);
    void orderBySignature(const QVector<Parameter> &signature);
    void merge(const CallTree &tree, int callIndex, int callCount, int srcNode, int dstNode);

    QVector<AlignedNode> m_nodes; // [0] is the root (the inputs dict)
    QHash<QString, int> m_byPath;
    int m_callCount = 0;
    int m_leafCount = 0;
};

} // namespace dimscope
