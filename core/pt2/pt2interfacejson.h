// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace dimscope {

// The part of a serialized ExportedProgram that Pt2ProgramParser reads, as JSON
// text: the record with graph_module.graph.nodes emptied.
//
// Why: a DOM (QJsonDocument) costs up to ~16 times its text, and the graph's nodes
// (every operation with its metadata and stack traces) are most of a real
// program's JSON while the reader needs none of them. They are skipped by a pull
// parser that allocates nothing, so what is built into a DOM is the interface
// (signature, tensor_values, ranges, call graph), bounded by maxBytes. With the
// record itself bounded (Pt2ReadLimits), a small .pt2 whose JSON inflates to
// hundreds of MB can no longer take gigabytes.
class Pt2InterfaceJson
{
public:
    // The pruned text; nullopt with *error when the JSON is invalid ("bad JSON at
    // byte 17: ...") or the interface is larger than maxBytes. *cut (when given)
    // tells how offsets in the pruned text map back to the record.
    struct Cut {
        qint64 at = -1;     // where the nodes' value began (-1: nothing was cut)
        qint64 removed = 0; // bytes the pruned text is shorter by
        qint64 toRecord(qint64 offset) const { return at >= 0 && offset > at ? offset + removed : offset; }
    };
    static std::optional<QByteArray> extract(const QByteArray &json, qint64 maxBytes, QString *error, Cut *cut = nullptr);
};

} // namespace dimscope
