#include "shapes/shapetable.h"

#include <QMap>

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

} // namespace

ShapeTable::ShapeTable(const Capture &capture)
{
    m_calls = capture.calls.size();
    QVector<QMap<QString, QVector<int>>> perCall;
    perCall.reserve(m_calls);
    for (const CapturedCall &call : capture.calls)
        perCall.append(leavesByArg(call.inputs));

    // Inputs in signature order, then any others (**kwargs) in order of appearance.
    for (const Parameter &p : capture.signature) {
        for (const auto &m : perCall) {
            if (m.contains(p.name)) {
                m_args << p.name;
                break;
            }
        }
    }
    for (int c = 0; c < m_calls; ++c) {
        const TreeNode *root = capture.calls[c].inputs.isEmpty() ? nullptr : &capture.calls[c].inputs.nodes[capture.calls[c].inputs.root];
        if (!root)
            continue;
        for (const QString &k : root->keys) {
            if (!m_args.contains(k))
                m_args << k;
        }
    }

    for (const QString &arg : m_args) {
        // Every call passing the input must have the same leaves with the same kind and rank.
        // Union of paths under this input, in reference order then first appearance.
        QStringList paths;
        QHash<QString, QMap<Variant, QVector<int>>> variants; // path -> (kind, rank) -> calls
        QVector<int> argCalls;
        for (int c = 0; c < m_calls; ++c) {
            auto it = perCall[c].constFind(arg);
            if (it == perCall[c].constEnd())
                continue;
            argCalls << c;
            const CallTree &tree = capture.calls[c].inputs;
            for (int li : *it) {
                const Leaf &l = tree.leaves[li];
                auto &v = variants[l.path];
                if (v.isEmpty())
                    paths << l.path;
                v[Variant{l.kind, l.isTensor() ? int(l.shape.size()) : 0}] << c;
            }
        }

        for (const QString &path : paths) {
            const auto &v = variants[path];
            QVector<int> have;
            for (auto it = v.begin(); it != v.end(); ++it)
                have += it.value();
            std::sort(have.begin(), have.end());
            bool consistent = true;
            if (have.size() != argCalls.size()) {
                QVector<int> absent;
                for (int c : argCalls) {
                    if (!std::binary_search(have.begin(), have.end(), c))
                        absent << c;
                }
                m_issues.append({path,
                                 QStringLiteral("'%1' is present in call(s) %2 but absent from call(s) %3, which pass '%4': "
                                                "the structure of '%4' changes between calls")
                                     .arg(path, describeCalls(have), describeCalls(absent), arg),
                                 absent});
                consistent = false;
            }
            if (v.size() > 1) {
                QStringList parts;
                QVector<int> others;
                bool first = true;
                for (auto it = v.begin(); it != v.end(); ++it) {
                    const QString what = it.key().kind == NodeKind::Tensor
                        ? QStringLiteral("a rank-%1 tensor").arg(it.key().rank)
                        : kindName(it.key().kind);
                    parts << QStringLiteral("%1 in call(s) %2").arg(what, describeCalls(it.value()));
                    if (!first)
                        others += it.value();
                    first = false;
                }
                bool rankOnly = true;
                for (auto it = v.begin(); it != v.end(); ++it)
                    rankOnly = rankOnly && it.key().kind == NodeKind::Tensor;
                m_issues.append({path,
                                 QStringLiteral("'%1' %2 between calls: %3")
                                     .arg(path, rankOnly ? QStringLiteral("changes rank") : QStringLiteral("changes kind"),
                                          parts.join(QStringLiteral("; "))),
                                 others});
                consistent = false;
            }
            // Tensor leaves go into the table, with the rank of the first call having them.
            int firstCall = have.isEmpty() ? -1 : have.first();
            Variant firstVariant{NodeKind::None, 0};
            for (auto it = v.begin(); it != v.end(); ++it) {
                if (it.value().contains(firstCall))
                    firstVariant = it.key();
            }
            if (firstVariant.kind != NodeKind::Tensor)
                continue;
            LeafInfo info;
            info.path = path;
            info.arg = arg;
            info.rank = firstVariant.rank;
            info.firstDim = m_dimLeaf.size();
            info.consistent = consistent;
            m_index.insert(path, m_leaves.size());
            for (int d = 0; d < info.rank; ++d)
                m_dimLeaf << m_leaves.size();
            m_leaves << info;
        }
    }

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
