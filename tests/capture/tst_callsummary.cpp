// SPDX-License-Identifier: GPL-3.0-or-later
// callSummary: onnx-diagnostic style one-line descriptions of call trees.
#include "capture/callsummary.h"

#include "deterministictestmain.h"

using namespace dimscope;

namespace {

// Builds trees by hand: each add* returns the node index.
struct TreeBuilder {
    CallTree tree;
    int node(NodeKind kind, int parent)
    {
        TreeNode n;
        n.kind = kind;
        n.parent = parent;
        tree.nodes.append(n);
        const int i = tree.nodes.size() - 1;
        if (parent >= 0)
            tree.nodes[parent].children.append(i);
        else
            tree.root = i;
        return i;
    }
    int container(NodeKind kind, int parent, const QStringList &keys = {}, const QString &type = {})
    {
        const int i = node(kind, parent);
        tree.nodes[i].keys = keys;
        if (!type.isEmpty())
            tree.nodes[i].setClass(type);
        return i;
    }
    int tensor(int parent, DType dt, const QVector<qint64> &shape)
    {
        const int i = node(NodeKind::Tensor, parent);
        Leaf l;
        l.kind = NodeKind::Tensor;
        l.dtype = dt;
        l.shape = shape;
        l.node = i;
        tree.nodes[i].leaf = tree.leaves.size();
        tree.leaves.append(l);
        return i;
    }
    int scalar(int parent, NodeKind kind)
    {
        const int i = node(kind, parent);
        Leaf l;
        l.kind = kind;
        l.node = i;
        tree.nodes[i].leaf = tree.leaves.size();
        tree.leaves.append(l);
        return i;
    }
};

} // namespace

class TestCallSummary : public QObject
{
    Q_OBJECT

private slots:
    void dynamicCache()
    {
        TreeBuilder b;
        const int root = b.container(NodeKind::Dict, -1, {QStringLiteral("input_ids"), QStringLiteral("past_key_values")});
        b.tensor(root, DType::I64, {2, 3});
        const int cache = b.container(NodeKind::Custom, root, {QStringLiteral("key_cache"), QStringLiteral("value_cache")},
                                      QStringLiteral("transformers.cache_utils.DynamicCache"));
        for (int k = 0; k < 2; ++k) {
            const int list = b.container(NodeKind::List, cache);
            b.tensor(list, DType::F32, {2, 4, 5, 8});
            b.tensor(list, DType::F32, {2, 4, 5, 8});
        }
        QCOMPARE(callSummary(b.tree),
                 QStringLiteral("dict(input_ids:T7s2x3,past_key_values:DynamicCache(key_cache=#2[T1s2x4x5x8,T1s2x4x5x8],"
                                "value_cache=#2[T1s2x4x5x8,T1s2x4x5x8]))"));
    }

    void containersAndScalars()
    {
        TreeBuilder b;
        const int root = b.container(NodeKind::Dict, -1, {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c")});
        const int tuple = b.container(NodeKind::Tuple, root);
        b.tensor(tuple, DType::BF16, {});
        b.scalar(tuple, NodeKind::None);
        const int nt = b.container(NodeKind::NamedTuple, root, {QStringLiteral("x"), QStringLiteral("flag")}, QStringLiteral("mod.Pair"));
        b.tensor(nt, DType::F16, {0, 3});
        b.scalar(nt, NodeKind::Bool);
        const int list = b.container(NodeKind::List, root);
        b.scalar(list, NodeKind::Int);
        b.scalar(list, NodeKind::Float);
        b.scalar(list, NodeKind::String);
        QCOMPARE(callSummary(b.tree), QStringLiteral("dict(a:(T16s,None),b:Pair(x=T10s0x3,flag=bool),c:#3[int,float,str])"));
    }

    void longListsAreAbbreviated()
    {
        TreeBuilder b;
        const int root = b.container(NodeKind::Dict, -1, {QStringLiteral("same"), QStringLiteral("differ")});
        const int same = b.container(NodeKind::List, root);
        for (int i = 0; i < 64; ++i)
            b.tensor(same, DType::F32, {1, 8});
        const int differ = b.container(NodeKind::List, root);
        for (int i = 1; i <= 6; ++i)
            b.tensor(differ, DType::F32, {i});
        QCOMPARE(callSummary(b.tree), QStringLiteral("dict(same:#64[T1s1x8,…],differ:#6[T1s1,T1s2,T1s3,…,T1s6])"));
        QCOMPARE(callSummary(b.tree, 100).count(QStringLiteral("T1s1x8")), 64);
    }

    void emptyTree() { QCOMPARE(callSummary(CallTree()), QString()); }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestCallSummary)
#include "tst_callsummary.moc"
