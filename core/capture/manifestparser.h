#pragma once

#include "capture/capture.h"

#include <QString>

#include <string_view>

namespace dimscope {

class InternPool;
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

    // On failure returns false with *error saying what and where (no file name).
    bool parse(std::string_view manifest, Capture &out, QString *error);

private:
    bool parseTopLevel(JsonCursor &c, Capture &out, const char *&callsAt);
    bool parseModel(JsonCursor &c, Capture &out);
    bool parseCalls(JsonCursor &c, Capture &out);
    bool parseCall(JsonCursor &c, int index, CapturedCall &call);
    int parseNode(JsonCursor &c, CallTree &tree, int parent, const QString &path, const QString &where, int depth);
    bool finishLeaf(CallTree &tree, int self, NodeKind kind, struct NodeFields &f, const QString &where);
    bool checkPaths(const CallTree &tree, const QString &callWhere, bool outputs);
    bool readStringList(JsonCursor &c, QStringList &out, const QString &what);
    bool readOptionalString(JsonCursor &c, QString &out, const QString &what);
    bool typeError(JsonCursor &c, const QString &what, const char *expected);
    bool jsonFailed(JsonCursor &c);
    bool fail(const QString &message);

    const SafetensorsHeader &m_header;
    qint64 m_dataStart;
    InternPool &m_pool;
    QString m_error;
    bool m_callsRead = false;
    QString m_callWhere; // "call 3" while parsing a call
    QString m_treeName;  // "inputs" or "outputs"
};

} // namespace dimscope
