// SPDX-License-Identifier: GPL-3.0-or-later
#include "pt2/pt2interfacejson.h"

#include "json/jsoncursor.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <string>
#include <unordered_set>
#include <vector>

namespace dimscope {

namespace {

// What is kept of a member the reader knows.
enum class Keep {
    Whole,        // the value as it is
    Members,      // an object: only the members its rules name
    NamedEntries, // an object: only the entries whose key the signature names
};

struct Rule {
    const char *key;
    Keep keep;
    const std::vector<Rule> *children; // Keep::Members
};

// The members Pt2ProgramParser reads; everything else is skipped unparsed.
const std::vector<Rule> &graphRules()
{
    static const std::vector<Rule> rules{{"tensor_values", Keep::NamedEntries, nullptr},
                                         {"sym_int_values", Keep::NamedEntries, nullptr}};
    return rules;
}

const std::vector<Rule> &graphModuleRules()
{
    static const std::vector<Rule> rules{{"graph", Keep::Members, &graphRules()},
                                         {"signature", Keep::Whole, nullptr},
                                         {"module_call_graph", Keep::Whole, nullptr}};
    return rules;
}

const std::vector<Rule> &rootRules()
{
    static const std::vector<Rule> rules{{"graph_module", Keep::Members, &graphModuleRules()},
                                         {"range_constraints", Keep::Whole, nullptr},
                                         {"schema_version", Keep::Whole, nullptr},
                                         {"torch_version", Keep::Whole, nullptr},
                                         {"opset_version", Keep::Whole, nullptr}};
    return rules;
}

const Rule kRoot{"", Keep::Members, &rootRules()};

// A value kept, as found in the record.
struct Kept {
    const Rule *rule = nullptr;
    const char *begin = nullptr; // the value's text
    const char *end = nullptr;
    bool descended = false;     // an object read member by member (Keep::Members)
    std::vector<Kept> members;  // then its kept members, in the record's order
};

bool locateValue(JsonCursor &c, Kept &kept);

bool locateMembers(JsonCursor &c, const std::vector<Rule> &rules, std::vector<Kept> &members)
{
    return c.forEachMember([&](std::string_view key) {
        const auto rule = std::find_if(rules.begin(), rules.end(), [&](const Rule &r) { return key == r.key; });
        if (rule == rules.end())
            return c.skipValue();
        Kept member;
        member.rule = &*rule;
        if (!locateValue(c, member))
            return false;
        // A key given twice: the last one counts, as in Python's json (torch's reader).
        members.erase(std::remove_if(members.begin(), members.end(), [&](const Kept &k) { return k.rule == member.rule; }),
                      members.end());
        members.push_back(std::move(member));
        return true;
    });
}

bool locateValue(JsonCursor &c, Kept &kept)
{
    const JsonCursor::Type type = c.peekType(); // past the whitespace: the span is the value itself
    kept.begin = c.rawPosition();
    if (kept.rule->keep == Keep::Members && type == JsonCursor::Type::Object) {
        kept.descended = true;
        if (!locateMembers(c, *kept.rule->children, kept.members))
            return false;
    } else if (!c.skipValue()) {
        return false;
    }
    kept.end = c.rawPosition();
    return true;
}

const Kept *memberOf(const Kept &object, const char *key)
{
    for (const Kept &m : object.members) {
        if (std::strcmp(m.rule->key, key) == 0)
            return &m;
    }
    return nullptr;
}

using Names = std::unordered_set<std::string>;

// Every string under a "name" or "as_name" key: the tensors and symbols the signature
// refers to (a superset is harmless). The text was checked by locateValue.
bool collectNames(JsonCursor &c, Names &names)
{
    switch (c.peekType()) {
    case JsonCursor::Type::Object:
        return c.forEachMember([&](std::string_view key) {
            if ((key == "name" || key == "as_name") && c.peekType() == JsonCursor::Type::String) {
                std::string_view name;
                std::string storage;
                if (!c.readString(name, storage))
                    return false;
                names.emplace(name);
                return true;
            }
            return collectNames(c, names);
        });
    case JsonCursor::Type::Array:
        return c.forEachElement([&] { return collectNames(c, names); });
    default:
        return c.skipValue();
    }
}

// The kept text as pieces of the record and glue between them, measured before it is
// assembled.
class KeptText
{
public:
    explicit KeptText(const char *record) : m_record(record) {}

    void glue(std::string text)
    {
        m_glue.push_back(std::move(text));
        const std::string &g = m_glue.back();
        m_pieces.push_back({g.data(), g.data() + g.size(), -1});
    }
    void raw(const char *begin, const char *end) { m_pieces.push_back({begin, end, begin - m_record}); }

    qint64 size() const
    {
        qint64 n = 0;
        for (const Piece &p : m_pieces)
            n += p.end - p.begin;
        return n;
    }
    qint64 elements() const
    {
        qint64 n = 0;
        for (const Piece &p : m_pieces)
            n += Pt2InterfaceJson::countElements(p.begin, p.end);
        return n;
    }
    QByteArray assemble(Pt2InterfaceJson::OffsetMap *map) const
    {
        QByteArray text;
        text.reserve(qsizetype(size()));
        qint64 recordEnd = 0; // glue maps to where the record piece before it ended
        for (const Piece &p : m_pieces) {
            if (map)
                map->add(text.size(), p.recordOffset >= 0 ? p.recordOffset : recordEnd);
            if (p.recordOffset >= 0)
                recordEnd = p.recordOffset + (p.end - p.begin);
            text.append(p.begin, p.end - p.begin);
        }
        return text;
    }

private:
    struct Piece {
        const char *begin;
        const char *end;
        qint64 recordOffset; // -1: glue
    };
    const char *m_record;
    std::deque<std::string> m_glue; // a deque: pieces point into its strings
    std::vector<Piece> m_pieces;
};

// The entries of `object` whose key is in `names`, each copied as it is.
void keepNamedEntries(const Kept &object, const Names &names, KeptText &out)
{
    JsonCursor c(object.begin, object.end);
    c.setAllowNonFinite(true);
    c.beginObject();
    out.glue("{");
    bool first = true;
    bool none = true;
    std::string_view key;
    std::string keyStorage;
    for (;;) {
        const char *before = c.rawPosition();
        if (!c.nextMember(first, key, keyStorage))
            break;
        // Between the value before and this key there is only whitespace and a comma.
        const char *memberBegin = std::find(before, c.rawPosition(), '"');
        const bool wanted = names.count(std::string(key)) > 0;
        c.skipValue();
        if (!wanted)
            continue;
        if (!none)
            out.glue(",");
        none = false;
        out.raw(memberBegin, c.rawPosition());
    }
    out.glue("}");
}

// `kept` as text; the named-entries objects only when `names` is given.
void write(const Kept &kept, const Names *names, KeptText &out)
{
    if (kept.descended) {
        out.glue("{");
        bool first = true;
        for (const Kept &m : kept.members) {
            out.glue(std::string(first ? "\"" : ",\"") + m.rule->key + "\":");
            first = false;
            write(m, names, out);
        }
        out.glue("}");
    } else if (kept.rule->keep == Keep::NamedEntries && *kept.begin == '{') {
        if (names)
            keepNamedEntries(kept, *names, out);
        else
            out.glue("{}");
    } else {
        out.raw(kept.begin, kept.end);
    }
}

QString checkLimits(const KeptText &text, const Pt2InterfaceJson::Limits &limits)
{
    static const QString what = QStringLiteral("the program's interface (the JSON this reader parses: the signature, "
                                               "the values of the tensors it names, ranges, versions, module call graph)");
    if (text.size() > limits.maxBytes)
        return QStringLiteral("%1 is %2 bytes, more than the %3 this reader parses").arg(what).arg(text.size()).arg(limits.maxBytes);
    const qint64 elements = text.elements();
    if (elements > limits.maxElements)
        return QStringLiteral("%1 has %2 JSON elements, more than the %3 this reader parses").arg(what).arg(elements).arg(limits.maxElements);
    return {};
}

} // namespace

qint64 Pt2InterfaceJson::OffsetMap::toRecord(qint64 offset) const
{
    const auto after = std::upper_bound(m_starts.begin(), m_starts.end(), offset,
                                        [](qint64 o, const QPair<qint64, qint64> &s) { return o < s.first; });
    if (after == m_starts.begin())
        return offset;
    const auto &piece = *(after - 1);
    return piece.second + (offset - piece.first);
}

qint64 Pt2InterfaceJson::countElements(const char *p, const char *end)
{
    qint64 n = 0;
    while (p < end) {
        const char ch = *p++;
        if (ch == '"') {
            while (p < end && *p != '"')
                p += *p == '\\' ? 2 : 1;
            ++p;
        } else if (ch == '{' || ch == '[' || ch == ':' || ch == ',') {
            ++n;
        }
    }
    return n;
}

std::optional<QByteArray> Pt2InterfaceJson::extract(const QByteArray &json, const Limits &limits, QString *error, OffsetMap *map)
{
    const char *begin = json.constData();
    JsonCursor c(begin, begin + json.size());
    c.setAllowNonFinite(true); // Python writes NaN and Infinity; QJsonDocument judges what is kept
    Kept root;
    root.rule = &kRoot;
    if (!locateValue(c, root) || (!c.atEnd() && !c.fail(QStringLiteral("unexpected data after the top-level value")))) {
        *error = QStringLiteral("bad JSON %1").arg(c.error());
        return std::nullopt;
    }
    // First without the tensor values: the names are collected only from a signature
    // within the limits, so that collecting them is bounded too.
    KeptText withoutValues(begin);
    write(root, nullptr, withoutValues);
    *error = checkLimits(withoutValues, limits);
    if (!error->isEmpty())
        return std::nullopt;
    Names names;
    const Kept *graphModule = memberOf(root, "graph_module");
    const Kept *signature = graphModule ? memberOf(*graphModule, "signature") : nullptr;
    if (signature) {
        JsonCursor s(signature->begin, signature->end);
        s.setAllowNonFinite(true);
        collectNames(s, names);
    }
    KeptText text(begin);
    write(root, &names, text);
    *error = checkLimits(text, limits);
    if (!error->isEmpty())
        return std::nullopt;
    return text.assemble(map);
}

} // namespace dimscope
