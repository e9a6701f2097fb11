// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/shapetable.h"

#include "util/terminaltext.h"

#include <QMap>

#include <algorithm>
#include <optional>

namespace dimscope {

QString describeCalls(const QVector<int> &calls)
{
    QStringList parts;
    for (int i = 0; i < calls.size();) {
        int j = i;
        while (j + 1 < calls.size() && calls[j + 1] == calls[j] + 1)
            ++j;
        if (j - i >= 2)
            parts << QStringLiteral("%1-%2").arg(calls[i]).arg(calls[j]);
        else
            for (int k = i; k <= j; ++k)
                parts << QString::number(calls[k]);
        i = j + 1;
    }
    return parts.join(QStringLiteral(", "));
}

bool ShapeTable::rowVaries(int dimRow) const
{
    const qint64 *values = row(dimRow);
    qint64 first = -1;
    for (int c = 0; c < m_calls; ++c) {
        if (values[c] < 0)
            continue;
        if (first < 0)
            first = values[c];
        else if (values[c] != first)
            return true;
    }
    return false;
}

namespace {

QString kindName(NodeKind k)
{
    switch (k) {
    case NodeKind::Tensor: return QStringLiteral("a tensor");
    case NodeKind::None: return QStringLiteral("None");
    case NodeKind::Int: return QStringLiteral("an int");
    case NodeKind::Float: return QStringLiteral("a float");
    case NodeKind::Bool: return QStringLiteral("a bool");
    case NodeKind::String: return QStringLiteral("a str");
    default: return QStringLiteral("a container");
    }
}

void collectLeaves(const CallTree &tree, int node, QVector<int> *out)
{
    const TreeNode &n = tree.nodes[node];
    if (n.leaf >= 0) {
        out->append(n.leaf);
        return;
    }
    for (int c : n.children)
        collectLeaves(tree, c, out);
}

// The leaves of each top-level input of one call.
QMap<QString, QVector<int>> leavesByArg(const CallTree &tree)
{
    QMap<QString, QVector<int>> out;
    if (tree.isEmpty())
        return out;
    const TreeNode &root = tree.nodes[tree.root];
    for (int i = 0; i < root.children.size() && i < root.keys.size(); ++i) {
        QVector<int> leaves;
        collectLeaves(tree, root.children[i], &leaves);
        out.insert(root.keys[i], leaves);
    }
    return out;
}

struct Variant {
    NodeKind kind;
    int rank;
    bool operator<(const Variant &o) const { return kind != o.kind ? kind < o.kind : rank < o.rank; }
};

using PerCallLeaves = QVector<QMap<QString, QVector<int>>>; // per call: input -> its leaves
using VariantCalls = QMap<Variant, QVector<int>>;           // (kind, rank) -> the calls with it

// The inputs in signature order, then any others (**kwargs) in order of appearance.
QStringList argsInOrder(const Capture &capture, const PerCallLeaves &perCall)
{
    QStringList args;
    for (const Parameter &p : capture.signature) {
        const bool passed = std::any_of(perCall.begin(), perCall.end(), [&](const auto &m) { return m.contains(p.name); });
        if (passed)
            args << p.name;
    }
    for (const CapturedCall &call : capture.calls) {
        if (call.inputs.isEmpty())
            continue;
        for (const QString &k : call.inputs.nodes[call.inputs.root].keys) {
            if (!args.contains(k))
                args << k;
        }
    }
    return args;
}

// The leaves under one input across the calls that pass it: their paths (in
// reference order, then first appearance) and the kind and rank each call gives them.
struct ArgLeaves {
    QStringList paths;
    QHash<QString, VariantCalls> variants;
    QVector<int> calls; // the calls that pass the input
};

ArgLeaves collectArgLeaves(const Capture &capture, const PerCallLeaves &perCall, const QString &arg)
{
    ArgLeaves out;
    for (int c = 0; c < perCall.size(); ++c) {
        auto it = perCall[c].constFind(arg);
        if (it == perCall[c].constEnd())
            continue;
        out.calls << c;
        const CallTree &tree = capture.calls[c].inputs;
        for (int li : *it) {
            const Leaf &l = tree.leaves[li];
            auto &v = out.variants[l.path];
            if (v.isEmpty())
                out.paths << l.path;
            v[Variant{l.kind, l.isTensor() ? int(l.shape.size()) : 0}] << c;
        }
    }
    return out;
}

// The calls that have the leaf at all, ascending.
QVector<int> callsHaving(const VariantCalls &variants)
{
    QVector<int> have;
    for (auto it = variants.begin(); it != variants.end(); ++it)
        have += it.value();
    std::sort(have.begin(), have.end());
    return have;
}

// Every call passing the input must have the leaf.
std::optional<ShapeIssue> presenceIssue(const QString &path, const QString &arg, const QVector<int> &have,
                                        const QVector<int> &argCalls)
{
    if (have.size() == argCalls.size())
        return std::nullopt;
    QVector<int> absent;
    for (int c : argCalls) {
        if (!std::binary_search(have.begin(), have.end(), c))
            absent << c;
    }
    return ShapeIssue{path,
                      QStringLiteral("'%1' is present in call(s) %2 but absent from call(s) %3, which pass '%4': "
                                     "the structure of '%4' changes between calls (a program serves the calls of "
                                     "one structure)")
                          .arg(TerminalText::field(path), describeCalls(have), describeCalls(absent), TerminalText::field(arg)),
                      absent, ShapeIssue::Kind::Presence, arg, have};
}

// Every call that has the leaf must give it the same kind and rank.
std::optional<ShapeIssue> variantIssue(const QString &path, const VariantCalls &variants)
{
    if (variants.size() <= 1)
        return std::nullopt;
    QStringList parts;
    QVector<int> others;
    bool first = true, rankOnly = true;
    for (auto it = variants.begin(); it != variants.end(); ++it) {
        const QString what = it.key().kind == NodeKind::Tensor ? QStringLiteral("a rank-%1 tensor").arg(it.key().rank)
                                                               : kindName(it.key().kind);
        parts << QStringLiteral("%1 in call(s) %2").arg(what, describeCalls(it.value()));
        if (!first)
            others += it.value();
        first = false;
        rankOnly = rankOnly && it.key().kind == NodeKind::Tensor;
    }
    return ShapeIssue{path,
                      QStringLiteral("'%1' %2 between calls: %3")
                          .arg(TerminalText::field(path), rankOnly ? QStringLiteral("changes rank") : QStringLiteral("changes kind"),
                               parts.join(QStringLiteral("; "))),
                      others, ShapeIssue::Kind::Variant, {}, {}};
}

// What no Dim can describe about one leaf: calls passing the input without it, and
// kinds or ranks that change.
QVector<ShapeIssue> leafIssues(const QString &path, const QString &arg, const VariantCalls &variants,
                               const QVector<int> &argCalls)
{
    QVector<ShapeIssue> issues;
    for (const std::optional<ShapeIssue> &issue :
         {presenceIssue(path, arg, callsHaving(variants), argCalls), variantIssue(path, variants)}) {
        if (issue)
            issues << *issue;
    }
    return issues;
}

// The rank of the leaf in the first call that has it, when it is a tensor there.
std::optional<int> firstTensorRank(const VariantCalls &variants)
{
    const QVector<int> have = callsHaving(variants);
    const int firstCall = have.isEmpty() ? -1 : have.first();
    Variant first{NodeKind::None, 0};
    for (auto it = variants.begin(); it != variants.end(); ++it) {
        if (it.value().contains(firstCall))
            first = it.key();
    }
    if (first.kind != NodeKind::Tensor)
        return std::nullopt;
    return first.rank;
}

} // namespace

ShapeTable::ShapeTable(const Capture &capture)
{
    m_calls = capture.calls.size();
    PerCallLeaves perCall;
    perCall.reserve(m_calls);
    for (const CapturedCall &call : capture.calls)
        perCall.append(leavesByArg(call.inputs));
    m_args = argsInOrder(capture, perCall);
    for (const QString &arg : std::as_const(m_args)) {
        const ArgLeaves leaves = collectArgLeaves(capture, perCall, arg);
        for (const QString &path : leaves.paths) {
            const VariantCalls &variants = leaves.variants[path];
            const QVector<ShapeIssue> issues = leafIssues(path, arg, variants, leaves.calls);
            m_issues += issues;
            // Tensor leaves go into the table, with the rank of the first call having them.
            const bool consistent = std::none_of(issues.begin(), issues.end(),
                                                 [](const ShapeIssue &i) { return i.isError(); });
            if (const std::optional<int> rank = firstTensorRank(variants))
                addTensorLeaf(path, arg, *rank, consistent);
        }
    }
    fillValues(capture);
}

void ShapeTable::addTensorLeaf(const QString &path, const QString &arg, int rank, bool consistent)
{
    LeafInfo info;
    info.path = path;
    info.arg = arg;
    info.rank = rank;
    info.firstDim = m_dimLeaf.size();
    info.consistent = consistent;
    m_index.insert(path, m_leaves.size());
    for (int d = 0; d < info.rank; ++d)
        m_dimLeaf << m_leaves.size();
    m_leaves << info;
}

void ShapeTable::fillValues(const Capture &capture)
{
    m_values.fill(-1, qsizetype(m_dimLeaf.size()) * m_calls);
    m_present.fill(0, qsizetype(m_leaves.size()) * m_calls);
    for (int c = 0; c < m_calls; ++c) {
        const CallTree &tree = capture.calls[c].inputs;
        for (const Leaf &l : tree.leaves) {
            if (!l.isTensor())
                continue;
            const int li = m_index.value(l.path, -1);
            if (li < 0)
                continue;
            LeafInfo &info = m_leaves[li];
            if (l.shape.size() != info.rank)
                continue; // reported as a rank issue; the validator reports it per call too
            m_present[qsizetype(li) * m_calls + c] = 1;
            ++info.presentCalls;
            for (int d = 0; d < info.rank; ++d)
                m_values[qsizetype(info.firstDim + d) * m_calls + c] = l.shape[d];
        }
    }
}

} // namespace dimscope
