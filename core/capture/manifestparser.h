// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"

#include <QPair>
#include <QString>

#include <functional>
#include <optional>

#include <string>
#include <string_view>

namespace dimscope {

class InternPool;
struct NodeFields;
enum class NodeMember;

// Where a node sits while it is parsed: its parent's location and fields (kind and
// keys seen so far) and its index among the parent's children.
struct NodeLoc {
    const NodeLoc *parent = nullptr;
    const NodeFields *parentFields = nullptr;
    int index = 0;
};
class JsonCursor;
class SafetensorsHeader;

// Reads the dimscope manifest (docs/capture-format.md, "Manifest") into a Capture,
// checking it against the safetensors header: every tensor leaf must name a header
// tensor with the same dtype and shape, key paths must follow from the tree, and
// container keys must match their children.
class ManifestParser
{
public:
    static constexpr int kSupportedVersion = 1;

    ManifestParser(const SafetensorsHeader &header, qint64 dataStart, InternPool &pool);

    // Called after each call with the manifest position reached: the caller may drop
    // the memory of the bytes before it (they are not read again).
    void setConsumedCallback(std::function<void(const char *)> callback) { m_consumed = std::move(callback); }

    // On failure returns false with *error saying what and where (no file name).
    bool parse(std::string_view manifest, Capture &out, QString *error);

private:
    bool parseTopLevel(JsonCursor &c, Capture &out, const char *&callsAt);
    bool parseFlattening(JsonCursor &c, Capture &out);
    bool parseModel(JsonCursor &c, Capture &out);
    bool parseParameter(JsonCursor &c, const QString &where, Parameter &p);
    bool parseCalls(JsonCursor &c, Capture &out);
    bool parseCall(JsonCursor &c, int index, CapturedCall &call);
    bool parseTree(JsonCursor &c, const QString &treeName, CallTree &tree, const QPair<int, int> &lastSizes);
    int parseNode(JsonCursor &c, CallTree &tree, int parent, const NodeLoc &loc, int depth);
    bool readNodeFields(JsonCursor &c, CallTree &tree, int self, NodeFields &f, const NodeLoc &loc, int depth);
    bool readNodeMember(JsonCursor &c, NodeMember member, CallTree &tree, int self, NodeFields &f, const NodeLoc &loc, int depth);
    bool readNodeChildren(JsonCursor &c, CallTree &tree, int self, NodeFields &f, const NodeLoc &loc, int depth);
    bool readNodeValue(JsonCursor &c, NodeFields &f, const NodeLoc &loc);
    bool readNodeString(JsonCursor &c, const NodeLoc &loc, const char *name, std::string_view &s, std::string &storage);
    bool readNodeInterned(JsonCursor &c, const NodeLoc &loc, const char *name, QString &out, bool &has);
    bool readNodeBytes(JsonCursor &c, const NodeLoc &loc, const char *name, std::string &out, bool &has);
    bool finishContainer(CallTree &tree, int self, NodeKind kind, NodeFields &f, const NodeLoc &loc);
    bool finishLeaf(CallTree &tree, int self, NodeKind kind, NodeFields &f, const NodeLoc &loc);
    bool checkPaths(const CallTree &tree, const QString &callWhere, bool outputs);
    std::optional<QString> pathOf(const NodeLoc &loc) const;
    QString describe(const NodeLoc &loc) const;
    static void reserveLike(CallTree &tree, const QPair<int, int> &sizes);
    static void fitAndRemember(CallTree &tree, QPair<int, int> &sizes);
    template <typename OnMember>
    bool readMembers(JsonCursor &c, OnMember &&onMember);
    template <typename OnElement>
    bool readElements(JsonCursor &c, OnElement &&onElement);
    bool readStringList(JsonCursor &c, QStringList &out, const QString &what);
    bool readOptionalString(JsonCursor &c, QString &out, const QString &what);
    bool typeError(JsonCursor &c, const QString &what, const char *expected);
    bool jsonFailed(JsonCursor &c);
    // After a value failed to read: a number out of range is reported at `what`.
    bool valueFailed(JsonCursor &c, const QString &what);
    bool fail(const QString &message);

    const SafetensorsHeader &m_header;
    qint64 m_dataStart;
    InternPool &m_pool;
    QString m_error;
    bool m_callsRead = false;
    int m_callsDepth = 0; // the cursor's depth at 'calls', for reading them later
    const char *m_manifestEnd = nullptr;
    std::function<void(const char *)> m_consumed;
    // Node and leaf counts of the previous call: calls usually share a structure,
    // so the next call's arrays are reserved exactly (no growth slack).
    QPair<int, int> m_lastInputs{0, 0};
    QPair<int, int> m_lastOutputs{0, 0};
    QString m_callWhere; // "call 3" while parsing a call
    QString m_treeName;  // "inputs" or "outputs"
};

} // namespace dimscope
