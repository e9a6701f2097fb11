// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture/keypath.h"

#include "util/terminaltext.h"

namespace dimscope {

void appendKeyPathSegment(QString &path, NodeKind kind, const QStringList &keys, int i, bool topLevel)
{
    switch (kind) {
    case NodeKind::Dict:
        if (i >= keys.size())
            break;
        if (topLevel)
            path += keys.at(i);
        else
            path += QLatin1String("['") + keys.at(i) + QLatin1String("']");
        return;
    case NodeKind::NamedTuple:
    case NodeKind::Custom:
        if (i >= keys.size())
            break;
        path += QLatin1Char('.') + keys.at(i);
        return;
    default:
        break;
    }
    path += QLatin1Char('[') + QString::number(i) + QLatin1Char(']');
}

namespace {

bool checkFrom(const CallTree &tree, int node, QString &path, bool topLevel, const QString &callWhere, QString &error)
{
    const TreeNode &n = tree.nodes.at(node);
    if (n.leaf >= 0) {
        const Leaf &leaf = tree.leaves.at(n.leaf);
        if (leaf.path == path)
            return true;
        error = QStringLiteral("%1, leaf %2: path does not match its place in the tree (expected %3)")
                    .arg(callWhere, TerminalText::field(leaf.path), TerminalText::field(path));
        return false;
    }
    for (int i = 0; i < n.children.size(); ++i) {
        const qsizetype length = path.size();
        appendKeyPathSegment(path, n.kind, n.keys, i, topLevel);
        if (!checkFrom(tree, n.children.at(i), path, false, callWhere, error))
            return false;
        path.truncate(length);
    }
    return true;
}

} // namespace

QString checkLeafPaths(const CallTree &tree, bool outputs, const QString &callWhere)
{
    // One buffer for the whole walk: segments are appended and cut back.
    QString path = outputs ? QStringLiteral("output") : QString();
    path.reserve(256);
    QString error;
    checkFrom(tree, tree.root, path, !outputs, callWhere, error);
    return error;
}

} // namespace dimscope
