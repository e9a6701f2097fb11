// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture/callsummary.h"

#include "util/terminaltext.h"

namespace dimscope {

namespace {

// Keys and class names come from the capture: a summary is one line for people, so
// they are shown through TerminalText (escaped, long ones elided).
QString shortTypeName(const QString &qualified)
{
    const int dot = qualified.lastIndexOf(QLatin1Char('.'));
    return TerminalText::field(dot < 0 ? QStringView(qualified) : QStringView(qualified).mid(dot + 1));
}

QString nodeSummary(const CallTree &tree, int index, int maxListItems, int depth)
{
    if (index < 0 || index >= tree.nodes.size())
        return QStringLiteral("?");
    const TreeNode &n = tree.nodes.at(index);
    if (n.leaf >= 0) {
        const Leaf &leaf = tree.leaves.at(n.leaf);
        switch (leaf.kind) {
        case NodeKind::Tensor: return tensorSummary(leaf);
        case NodeKind::None: return QStringLiteral("None");
        case NodeKind::Int: return QStringLiteral("int");
        case NodeKind::Float: return QStringLiteral("float");
        case NodeKind::Bool: return QStringLiteral("bool");
        case NodeKind::String: return QStringLiteral("str");
        default: return QStringLiteral("?");
        }
    }
    if (depth > 64)
        return QStringLiteral("…");
    QStringList items;
    items.reserve(n.children.size());
    for (int c : n.children)
        items << nodeSummary(tree, c, maxListItems, depth + 1);
    auto named = [&](const QString &sep) {
        QStringList parts;
        for (int i = 0; i < items.size(); ++i)
            parts << (i < n.keys.size() ? TerminalText::field(n.keys.at(i)) : QString::number(i)) + sep + items.at(i);
        return parts.join(QLatin1Char(','));
    };
    switch (n.kind) {
    case NodeKind::Dict:
        return QLatin1String("dict(") + named(QStringLiteral(":")) + QLatin1Char(')');
    case NodeKind::NamedTuple:
    case NodeKind::Custom:
        return shortTypeName(n.typeName()) + QLatin1Char('(') + named(QStringLiteral("=")) + QLatin1Char(')');
    case NodeKind::List:
    case NodeKind::Tuple: {
        if (items.size() > maxListItems && maxListItems > 0) {
            const bool same = std::all_of(items.cbegin(), items.cend(), [&](const QString &s) { return s == items.first(); });
            QStringList shown;
            if (same) {
                shown << items.first() << QStringLiteral("…");
            } else {
                shown = items.mid(0, std::max(1, maxListItems - 1));
                shown << QStringLiteral("…") << items.last();
            }
            items = shown;
        }
        const QString body = items.join(QLatin1Char(','));
        if (n.kind == NodeKind::Tuple)
            return QLatin1Char('(') + body + QLatin1Char(')');
        return QLatin1Char('#') + QString::number(n.children.size()) + QLatin1Char('[') + body + QLatin1Char(']');
    }
    default:
        return QStringLiteral("?");
    }
}

} // namespace

QString tensorSummary(const Leaf &leaf)
{
    QString s = QLatin1Char('T') + QString::number(dtype::onnxElementType(leaf.dtype)) + QLatin1Char('s');
    for (int i = 0; i < leaf.shape.size(); ++i) {
        if (i)
            s += QLatin1Char('x');
        s += QString::number(leaf.shape.at(i));
    }
    return s;
}

QString callSummary(const CallTree &tree, int maxListItems)
{
    if (tree.isEmpty())
        return QString();
    return nodeSummary(tree, tree.root, maxListItems, 0);
}

} // namespace dimscope
