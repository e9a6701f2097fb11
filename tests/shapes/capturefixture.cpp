#include "capturefixture.h"

#include <QStringList>

namespace dimscope::test {

namespace {

QVector<qint64> parseShape(const QString &s)
{
    QVector<qint64> shape;
    if (s == QLatin1String("scalar"))
        return shape;
    for (const QString &p : s.split(QLatin1Char('x')))
        shape << p.toLongLong();
    return shape;
}

int addNode(CallTree &t, TreeNode n, int parent)
{
    n.parent = parent;
    t.nodes << n;
    const int index = t.nodes.size() - 1;
    if (parent >= 0)
        t.nodes[parent].children << index;
    return index;
}

void addLeaf(CallTree &t, int parent, const QString &path, NodeKind kind, const QVector<qint64> &shape = {},
             const QJsonValue &value = {})
{
    TreeNode n;
    n.kind = kind;
    n.leaf = t.leaves.size();
    const int index = addNode(t, n, parent);
    Leaf l;
    l.path = path;
    l.kind = kind;
    l.node = index;
    l.shape = shape;
    l.device = QStringLiteral("cpu");
    l.value = value;
    l.tensorName = path;
    t.leaves << l;
}

} // namespace

Capture makeCapture(const QString &text)
{
    Capture cap;
    cap.formatVersion = 1;
    cap.modelClass = QStringLiteral("test.Model");
    const QStringList calls = text.split(QLatin1Char('|'));
    QStringList names;
    for (int ci = 0; ci < calls.size(); ++ci) {
        CapturedCall call;
        call.index = ci;
        CallTree &t = call.inputs;
        TreeNode root;
        root.kind = NodeKind::Dict;
        t.root = addNode(t, root, -1);
        for (const QString &item : calls[ci].split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
            const QString name = item.section(QLatin1Char('='), 0, 0);
            QString spec = item.section(QLatin1Char('='), 1);
            if (!names.contains(name))
                names << name;
            if (spec == QLatin1String("-")) {
                call.missing << name;
                continue;
            }
            t.nodes[t.root].keys << name;
            if (spec.endsWith(QLatin1Char('*'))) {
                spec.chop(1);
                call.missing << name;
                call.filled << name;
                if (!cap.valueIfMissing.contains(name))
                    cap.valueIfMissing << name;
            }
            if (spec.startsWith(QLatin1String("cache("))) {
                const QString inner = spec.mid(6, spec.size() - 7);
                const int layers = inner.section(QLatin1Char(':'), 0, 0).toInt();
                const QVector<qint64> shape = parseShape(inner.section(QLatin1Char(':'), 1));
                TreeNode c;
                c.kind = NodeKind::Custom;
                c.typeName = QStringLiteral("transformers.cache_utils.DynamicCache");
                c.flavour = QStringLiteral("key_value_dict");
                c.keys = QStringList{QStringLiteral("key_cache"), QStringLiteral("value_cache")};
                const int cn = addNode(t, c, t.root);
                cap.flattening.insert(c.typeName, c.flavour);
                for (const QString &part : c.keys) {
                    TreeNode l;
                    l.kind = NodeKind::List;
                    const int ln = addNode(t, l, cn);
                    for (int i = 0; i < layers; ++i)
                        addLeaf(t, ln, QStringLiteral("%1.%2[%3]").arg(name, part).arg(i), NodeKind::Tensor, shape);
                }
            } else if (spec.startsWith(QLatin1String("list("))) {
                TreeNode l;
                l.kind = NodeKind::List;
                const int ln = addNode(t, l, t.root);
                const QStringList shapes = spec.mid(5, spec.size() - 6).split(QLatin1Char(','));
                for (int i = 0; i < shapes.size(); ++i)
                    addLeaf(t, ln, QStringLiteral("%1[%2]").arg(name).arg(i), NodeKind::Tensor, parseShape(shapes[i]));
            } else if (spec.startsWith(QLatin1String("int("))) {
                addLeaf(t, t.root, name, NodeKind::Int, {}, spec.mid(4, spec.size() - 5).toInt());
            } else if (spec == QLatin1String("none")) {
                addLeaf(t, t.root, name, NodeKind::None);
            } else {
                addLeaf(t, t.root, name, NodeKind::Tensor, parseShape(spec));
            }
        }
        cap.calls << call;
    }
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

namespace dimscope::test {

QString summarizeDims(const ConstraintSet &set)
{
    QStringList out;
    for (const DimDecl &d : set.dims()) {
        if (d.isDerived())
            out << QStringLiteral("%1=%2").arg(d.name, d.relationText());
        else
            out << QStringLiteral("%1[%2,%3]")
                       .arg(d.name, d.min ? QString::number(*d.min) : QStringLiteral("-"),
                            d.max ? QString::number(*d.max) : QStringLiteral("oo"));
    }
    return out.join(QLatin1Char(' '));
}

QString summarizeLeaves(const ConstraintSet &set)
{
    QStringList out;
    for (const LeafConstraint &l : set.leaves()) {
        QStringList dims;
        bool any = false;
        for (const DimAssignment &a : l.dims) {
            dims << a.toString();
            any = any || !a.isStatic();
        }
        if (any)
            out << QStringLiteral("%1(%2)").arg(l.path, dims.join(QLatin1Char(',')));
    }
    return out.join(QLatin1Char(' '));
}

} // namespace dimscope::test
