// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/substitutedinputs.h"

#include <QSet>

namespace dimscope {

namespace {

// Copies the subtree of `from` at `node` into `to` (parent `parent`), its leaves in
// flattening order; returns its index in `to`.
int copySubtree(const CallTree &from, int node, int parent, CallTree *to)
{
    const int index = int(to->nodes.size());
    TreeNode copy = from.nodes.at(node);
    copy.parent = parent;
    copy.children.clear();
    if (copy.leaf >= 0) {
        Leaf leaf = from.leaves.at(copy.leaf);
        leaf.node = index;
        copy.leaf = int(to->leaves.size());
        to->leaves << leaf;
    }
    to->nodes << copy;
    for (int child : from.nodes.at(node).children) {
        const int c = copySubtree(from, child, index, to);
        to->nodes[index].children << c;
    }
    return index;
}

// The inputs tree without the top-level entries `names` (the root is a dict keyed by
// parameter name). Rebuilt rather than patched: no orphaned node or leaf stays behind.
CallTree withoutEntries(const CallTree &tree, const QSet<QString> &names)
{
    if (tree.isEmpty())
        return tree;
    const TreeNode &root = tree.nodes.at(tree.root);
    CallTree out;
    TreeNode top = root;
    top.parent = -1;
    top.keys.clear();
    top.children.clear();
    out.nodes << top;
    out.root = 0;
    for (int i = 0; i < root.children.size(); ++i) {
        const QString key = root.keys.value(i);
        if (names.contains(key))
            continue;
        const int c = copySubtree(tree, root.children.at(i), 0, &out);
        out.nodes[0].keys << key;
        out.nodes[0].children << c;
    }
    return out;
}

} // namespace

QStringList SubstitutedInputs::commonTo(const Capture &capture, const QVector<int> &calls)
{
    QVector<int> which = calls;
    if (which.isEmpty()) {
        for (int c = 0; c < capture.calls.size(); ++c)
            which << c;
    }
    if (which.isEmpty())
        return {};
    QSet<QString> common;
    for (int i = 0; i < which.size(); ++i) {
        const QStringList &filled = capture.calls.at(which.at(i)).filled;
        const QSet<QString> here(filled.begin(), filled.end());
        if (i == 0)
            common = here;
        else
            common.intersect(here);
    }
    QStringList out;
    for (const Parameter &p : capture.signature) {
        if (common.remove(p.name))
            out << p.name;
    }
    QStringList rest(common.begin(), common.end()); // **kwargs entries: not in the signature
    rest.sort();
    return out + rest;
}

Capture SubstitutedInputs::without(const Capture &capture, const QStringList &names)
{
    if (names.isEmpty())
        return capture;
    Capture out = capture;
    for (CapturedCall &call : out.calls) {
        QSet<QString> drop;
        for (const QString &name : names) {
            if (call.filled.contains(name))
                drop.insert(name);
        }
        if (drop.isEmpty())
            continue;
        call.inputs = withoutEntries(call.inputs, drop);
        for (const QString &name : std::as_const(drop)) {
            call.filled.removeAll(name);
            if (!call.missing.contains(name))
                call.missing << name;
        }
    }
    return out;
}

bool SubstitutedInputs::isUnder(const QString &path, const QStringList &names)
{
    for (const QString &name : names) {
        if (path.startsWith(name)
            && (path.size() == name.size() || path.at(name.size()) == QLatin1Char('.') || path.at(name.size()) == QLatin1Char('[')))
            return true;
    }
    return false;
}

QString SubstitutedInputs::namesText(const QStringList &names)
{
    return names.join(QStringLiteral(", "));
}

} // namespace dimscope
