// SPDX-License-Identifier: GPL-3.0-or-later
#include "capturebuilder.h"

#include <QStringList>

namespace dimscope::test {

namespace {

struct TensorSpec {
    QVector<qint64> shape;
    DType dtype = DType::F32;
};

// "2x3:i64" -> {2, 3}, I64; "scalar" -> rank 0.
TensorSpec parseTensor(const QString &text)
{
    TensorSpec spec;
    const QString shape = text.section(QLatin1Char(':'), 0, 0);
    const QString dtype = text.section(QLatin1Char(':'), 1);
    if (!dtype.isEmpty()) {
        const std::optional<DType> parsed = dtype::fromSafetensors(dtype.toUpper());
        if (!parsed)
            qFatal("makeCapture: unknown dtype %s", qPrintable(dtype));
        spec.dtype = *parsed;
    }
    if (shape == QLatin1String("scalar"))
        return spec;
    for (const QString &d : shape.split(QLatin1Char('x')))
        spec.shape << d.toLongLong();
    return spec;
}

// The text between "kind(" and the closing ")".
QString argumentOf(const QString &spec)
{
    const int open = spec.indexOf(QLatin1Char('('));
    return spec.mid(open + 1, spec.size() - open - 2);
}

// Appends nodes and leaves to one call's input tree.
class TreeWriter
{
public:
    explicit TreeWriter(CallTree &tree) : m_tree(tree) {}

    int container(NodeKind kind, int parent, const QStringList &keys = {}, const QString &typeName = {},
                  const QString &flavour = {})
    {
        TreeNode n;
        n.kind = kind;
        n.keys = keys;
        if (!typeName.isEmpty())
            n.setClass(typeName, flavour);
        return add(n, parent);
    }

    void tensor(int parent, const QString &path, const TensorSpec &spec)
    {
        Leaf l = leaf(parent, path, NodeKind::Tensor);
        l.shape = spec.shape;
        l.dtype = spec.dtype;
        l.device = QStringLiteral("cpu");
        m_tree.leaves << l;
    }

    void scalar(int parent, const QString &path, NodeKind kind, const QJsonValue &value = {})
    {
        Leaf l = leaf(parent, path, kind);
        l.value = value;
        m_tree.leaves << l;
    }

private:
    int add(TreeNode n, int parent)
    {
        n.parent = parent;
        m_tree.nodes << n;
        const int index = m_tree.nodes.size() - 1;
        if (parent >= 0)
            m_tree.nodes[parent].children << index;
        else
            m_tree.root = index;
        return index;
    }

    // The leaf's node is added now; the caller appends the leaf itself.
    Leaf leaf(int parent, const QString &path, NodeKind kind)
    {
        TreeNode n;
        n.kind = kind;
        n.leaf = m_tree.leaves.size();
        Leaf l;
        l.path = path;
        l.kind = kind;
        l.node = add(n, parent);
        return l;
    }

    CallTree &m_tree;
};

void addCache(Capture &cap, TreeWriter &w, int root, const QString &name, const QString &spec)
{
    const QString inner = argumentOf(spec);
    const int layers = inner.section(QLatin1Char(':'), 0, 0).toInt();
    const TensorSpec tensor = parseTensor(inner.section(QLatin1Char(':'), 1));
    const QString type = QStringLiteral("transformers.cache_utils.DynamicCache");
    const QString flavour = QStringLiteral("key_value_dict");
    const QStringList parts{QStringLiteral("key_cache"), QStringLiteral("value_cache")};
    const int cache = w.container(NodeKind::Custom, root, parts, type, flavour);
    cap.flattening.insert(type, flavour);
    for (const QString &part : parts) {
        const int list = w.container(NodeKind::List, cache);
        for (int i = 0; i < layers; ++i)
            w.tensor(list, QStringLiteral("%1.%2[%3]").arg(name, part).arg(i), tensor);
    }
}

void addItem(Capture &cap, TreeWriter &w, int root, const QString &name, const QString &spec)
{
    if (spec.startsWith(QLatin1String("cache("))) {
        addCache(cap, w, root, name, spec);
    } else if (spec.startsWith(QLatin1String("list("))) {
        const int list = w.container(NodeKind::List, root);
        const QStringList shapes = argumentOf(spec).split(QLatin1Char(','));
        for (int i = 0; i < shapes.size(); ++i)
            w.tensor(list, QStringLiteral("%1[%2]").arg(name).arg(i), parseTensor(shapes[i]));
    } else if (spec.startsWith(QLatin1String("int("))) {
        w.scalar(root, name, NodeKind::Int, argumentOf(spec).toInt());
    } else if (spec.startsWith(QLatin1String("bool("))) {
        w.scalar(root, name, NodeKind::Bool, argumentOf(spec) == QLatin1String("true"));
    } else if (spec == QLatin1String("none")) {
        w.scalar(root, name, NodeKind::None);
    } else {
        w.tensor(root, name, parseTensor(spec));
    }
}

CapturedCall makeCall(Capture &cap, int index, const QString &text, QStringList &names)
{
    CapturedCall call;
    call.index = index;
    TreeWriter w(call.inputs);
    const int root = w.container(NodeKind::Dict, -1);
    for (const QString &item : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QString name = item.section(QLatin1Char('='), 0, 0);
        QString spec = item.section(QLatin1Char('='), 1);
        if (!names.contains(name))
            names << name;
        if (spec == QLatin1String("-")) {
            call.missing << name;
            continue;
        }
        call.inputs.nodes[root].keys << name;
        if (spec.endsWith(QLatin1Char('*'))) {
            spec.chop(1);
            call.missing << name;
            call.filled << name;
            if (!cap.valueIfMissing.contains(name))
                cap.valueIfMissing << name;
        }
        addItem(cap, w, root, name, spec);
    }
    return call;
}

} // namespace

Capture makeCapture(const QString &text)
{
    Capture cap;
    cap.formatVersion = 1;
    cap.modelClass = QStringLiteral("test.Model");
    const QStringList calls = text.split(QLatin1Char('|'));
    QStringList names;
    for (int i = 0; i < calls.size(); ++i)
        cap.calls << makeCall(cap, i, calls[i], names);
    for (const QString &n : names) {
        Parameter p;
        p.name = n;
        p.kind = QStringLiteral("POSITIONAL_OR_KEYWORD");
        p.hasDefault = n != names.first();
        cap.signature << p;
    }
    return cap;
}

} // namespace dimscope::test
