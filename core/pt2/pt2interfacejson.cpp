// SPDX-License-Identifier: GPL-3.0-or-later
#include "pt2/pt2interfacejson.h"

#include "capture/jsoncursor.h"

#include <functional>

namespace dimscope {

namespace {

// Where the value of graph_module.graph.nodes lies, found while the whole text is
// checked (a text valid once pruned must have been valid before).
struct NodesSpan {
    const char *begin = nullptr;
    const char *end = nullptr;
};

bool readMembers(JsonCursor &c, const std::function<bool(std::string_view)> &onMember)
{
    c.beginObject();
    bool first = true;
    std::string_view key;
    std::string keyStorage;
    while (c.nextMember(first, key, keyStorage)) {
        if (!onMember(key))
            return false;
    }
    return c.ok();
}

// Descends into `key` when it holds an object (with `inner`), else skips it.
bool objectMember(JsonCursor &c, const std::function<bool(std::string_view)> &inner)
{
    if (c.peekType() == JsonCursor::Type::Object)
        return readMembers(c, inner);
    return c.skipValue();
}

bool findNodes(JsonCursor &c, NodesSpan &span)
{
    auto graph = [&](std::string_view key) {
        if (key != "nodes")
            return c.skipValue();
        c.peekType(); // past the whitespace: the span is the value itself
        span.begin = c.rawPosition();
        const bool ok = c.skipValue();
        span.end = c.rawPosition();
        return ok;
    };
    auto graphModule = [&](std::string_view key) { return key == "graph" ? objectMember(c, graph) : c.skipValue(); };
    auto root = [&](std::string_view key) { return key == "graph_module" ? objectMember(c, graphModule) : c.skipValue(); };
    if (c.peekType() == JsonCursor::Type::Object ? !readMembers(c, root) : !c.skipValue())
        return false;
    if (!c.atEnd())
        return c.fail(QStringLiteral("unexpected data after the top-level value"));
    return true;
}

} // namespace

std::optional<QByteArray> Pt2InterfaceJson::extract(const QByteArray &json, qint64 maxBytes, QString *error, Cut *cut)
{
    JsonCursor c(json.constData(), json.constData() + json.size());
    c.setAllowNonFinite(true); // Python writes NaN and Infinity; QJsonDocument judges what is kept
    NodesSpan nodes;
    if (!findNodes(c, nodes)) {
        *error = QStringLiteral("bad JSON %1").arg(c.error());
        return std::nullopt;
    }
    const char *begin = json.constData();
    const char *end = begin + json.size();
    const qint64 size = nodes.begin ? (nodes.begin - begin) + 2 + (end - nodes.end) : json.size();
    if (size > maxBytes) {
        *error = QStringLiteral("the program's interface (its JSON without graph_module.graph.nodes) is %1 bytes, "
                                "more than the %2 this reader parses")
                     .arg(size).arg(maxBytes);
        return std::nullopt;
    }
    if (!nodes.begin)
        return json;
    if (cut) {
        cut->at = nodes.begin - begin;
        cut->removed = (nodes.end - nodes.begin) - 2;
    }
    QByteArray kept;
    kept.reserve(qsizetype(size));
    kept.append(begin, nodes.begin - begin).append("[]").append(nodes.end, end - nodes.end);
    return kept;
}

} // namespace dimscope
