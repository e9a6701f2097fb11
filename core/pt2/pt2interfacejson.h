// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QPair>
#include <QString>
#include <QVector>

#include <optional>

namespace dimscope {

// The part of a serialized ExportedProgram that Pt2ProgramParser reads, as JSON
// text: the members it knows (versions, the signature, the range constraints, the
// module call graph) and, of graph_module.graph.tensor_values and sym_int_values,
// only the entries that the signature names.
//
// Why: a DOM (QJsonDocument) costs tens of bytes per element whatever the element's
// size: 64 MB of `{"":[[]]},` under a key nobody reads took 2.5 GB. Everything else
// (the graph's nodes, the values of intermediate tensors, keys newer than this
// reader) is checked and skipped by a pull parser that allocates nothing, so what is
// built into a DOM is bounded in bytes and in elements (limits below), however the
// record is made. With the record itself bounded (Pt2ReadLimits), a small .pt2 that
// inflates to hundreds of MB cannot take gigabytes.
class Pt2InterfaceJson
{
public:
    struct Limits {
        qint64 maxBytes = 0;    // of the kept text
        qint64 maxElements = 0; // of JSON elements in it (countElements)
    };

    // How offsets in the kept text map back to the record (for QJsonDocument's errors).
    class OffsetMap
    {
    public:
        void add(qint64 keptOffset, qint64 recordOffset) { m_starts.append({keptOffset, recordOffset}); }
        qint64 toRecord(qint64 offset) const;

    private:
        QVector<QPair<qint64, qint64>> m_starts; // (start in the kept text, its place in the record), in order
    };

    // The kept text; nullopt with *error when the JSON is invalid ("bad JSON at byte
    // 17: ...") or the kept part exceeds a limit.
    static std::optional<QByteArray> extract(const QByteArray &json, const Limits &limits, QString *error,
                                             OffsetMap *map = nullptr);

    // The JSON elements of valid JSON text, as a DOM would hold them: every object and
    // list, every member, every list entry after the first (counted as the '{', '[', ':'
    // and ',' outside strings). A DOM's cost follows this count more than the bytes.
    static qint64 countElements(const char *begin, const char *end);
};

} // namespace dimscope
