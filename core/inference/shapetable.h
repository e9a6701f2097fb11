// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"

#include <QHash>
#include <QString>
#include <QVector>

namespace dimscope {

// A difference between calls that no Dim can describe: a leaf whose rank, kind or
// presence changes between calls that pass its input. A kind or rank that changes is
// an error. A leaf that only some calls have (a cache layer's state that is None before
// its first update, a tensor after) is a change of structure, as an input that some
// calls leave out is: one program serves the calls of one structure, and the phased
// export exports one for each (ExportPhases::split), so it is a warning.
struct ShapeIssue {
    enum class Kind { Presence, Variant };
    QString path;        // the leaf (or the input when the difference is in its structure)
    QString message;     // names the leaf and the calls
    QVector<int> calls;  // the calls that disagree with the first one
    Kind kind = Kind::Variant;
    QString input;        // Presence: the top-level input whose structure changes
    QVector<int> present; // Presence: the calls that have the leaf
    bool isError() const { return kind == Kind::Variant; }
};

// The shapes of every tensor input leaf in every call of a capture, in one compact
// table built once per capture: ShapeInference and ConstraintValidator read it in
// tight loops. Leaves are ordered by the forward signature, then flattening order.
// A value is -1 where the call does not have the leaf (optional input not passed).
class ShapeTable
{
public:
    struct LeafInfo {
        QString path;
        QString arg;        // the top-level parameter the leaf belongs to
        int rank = 0;       // in the first call that has the leaf
        int firstDim = 0;   // index of its dimension 0 in the dim rows
        int presentCalls = 0;
        bool consistent = true; // same kind and rank in every call that has it (present or not)
    };

    ShapeTable() = default;
    explicit ShapeTable(const Capture &capture);

    int callCount() const { return m_calls; }
    int leafCount() const { return m_leaves.size(); }
    int dimRowCount() const { return m_dimLeaf.size(); }
    const LeafInfo &leaf(int i) const { return m_leaves[i]; }
    const QVector<LeafInfo> &leaves() const { return m_leaves; }
    int indexOf(const QString &path) const { return m_index.value(path, -1); }
    // Dim rows: one per (leaf, dimension), each callCount() values long.
    const qint64 *row(int dimRow) const { return m_values.constData() + qsizetype(dimRow) * m_calls; }
    qint64 value(int dimRow, int call) const { return m_values[qsizetype(dimRow) * m_calls + call]; }
    int leafOfRow(int dimRow) const { return m_dimLeaf[dimRow]; }
    int dimOfRow(int dimRow) const { return dimRow - m_leaves[m_dimLeaf[dimRow]].firstDim; }
    // Whether the known sizes (the calls that pass the leaf) of a dim row are not all
    // the same: the dim varies between calls.
    bool rowVaries(int dimRow) const;
    bool present(int leaf, int call) const { return m_present[qsizetype(leaf) * m_calls + call] != 0; }
    // The top-level inputs in signature order, and whether a call passes each.
    const QStringList &args() const { return m_args; }

    const QVector<ShapeIssue> &issues() const { return m_issues; }

private:
    void addTensorLeaf(const QString &path, const QString &arg, int rank, bool consistent);
    // The sizes and presence of every leaf in every call.
    void fillValues(const Capture &capture);

    int m_calls = 0;
    QStringList m_args;
    QVector<LeafInfo> m_leaves;
    QHash<QString, int> m_index;
    QVector<int> m_dimLeaf;
    QVector<qint64> m_values;
    QVector<quint8> m_present;
    QVector<ShapeIssue> m_issues;
};

// "0, 2, 5" or "0-3, 7" for messages.
QString describeCalls(const QVector<int> &calls);

} // namespace dimscope
