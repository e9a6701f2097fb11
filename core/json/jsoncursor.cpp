// SPDX-License-Identifier: GPL-3.0-or-later
#include "json/jsoncursor.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QSysInfo>
#include <QtAlgorithms>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

namespace dimscope {

namespace {
constexpr size_t kLinearMemberNames = 16; // objects with more member names hash them

bool isDigit(char c) { return c >= '0' && c <= '9'; }

int hexValue(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

void appendUtf8(std::string &s, uint cp)
{
    if (cp < 0x80) {
        s.push_back(char(cp));
    } else if (cp < 0x800) {
        s.push_back(char(0xC0 | (cp >> 6)));
        s.push_back(char(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        s.push_back(char(0xE0 | (cp >> 12)));
        s.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
        s.push_back(char(0x80 | (cp & 0x3F)));
    } else {
        s.push_back(char(0xF0 | (cp >> 18)));
        s.push_back(char(0x80 | ((cp >> 12) & 0x3F)));
        s.push_back(char(0x80 | ((cp >> 6) & 0x3F)));
        s.push_back(char(0x80 | (cp & 0x3F)));
    }
}

// A byte that a JSON string holds as itself: not its end, an escape, a control
// character or part of a multi-byte UTF-8 sequence (those need checking).
bool isPlainStringByte(char c)
{
    const uchar u = uchar(c);
    return u >= 0x20 && u < 0x80 && c != '"' && c != '\\';
}

// The first byte at or after `p` that is not plain (see above), or `end`. Eight
// bytes at a time: the manifest is a 4 MB string inside the header, and
// decoding it one byte at a time was a sixth of a capture's open.
const char *endOfPlainRun(const char *p, const char *end)
{
    constexpr quint64 ones = 0x0101010101010101ULL;
    constexpr quint64 highBits = 0x8080808080808080ULL;
    while (end - p >= 8) {
        quint64 x;
        memcpy(&x, p, 8);
        const quint64 quote = x ^ (ones * '"');
        const quint64 backslash = x ^ (ones * '\\');
        // A byte's high bit ends up set when it is '"' or '\\' (zero after the
        // xor), below 0x20, or itself >= 0x80. A borrow can also set it in bytes
        // above such a byte, never below: the lowest one set is exact.
        const quint64 special = (((quote - ones) & ~quote) | ((backslash - ones) & ~backslash)
                                 | ((x - ones * 0x20) & ~x) | x) & highBits;
        if (special) {
            if constexpr (QSysInfo::ByteOrder == QSysInfo::LittleEndian)
                return p + (qCountTrailingZeroBits(special) >> 3);
            break; // big-endian: the byte loop below finds it
        }
        p += 8;
    }
    while (p < end && isPlainStringByte(*p))
        ++p;
    return p;
}

// A number's text for a message: long ones elided in the middle.
QString numberText(const char *begin, const char *end)
{
    const QString text = QString::fromLatin1(begin, qsizetype(end - begin));
    return text.size() <= 30 ? text : text.left(12) + QLatin1String("...") + text.right(12);
}

QString printable(char c)
{
    const uchar u = uchar(c);
    if (u >= 0x20 && u < 0x7F)
        return QStringLiteral("'%1'").arg(QLatin1Char(c));
    return QStringLiteral("byte 0x%1").arg(u, 2, 16, QLatin1Char('0'));
}
} // namespace

JsonCursor::JsonCursor(const char *begin, const char *end, qint64 offsetBase)
    : m_begin(begin), m_end(end), m_pos(begin), m_offsetBase(offsetBase)
{
}

bool JsonCursor::fail(const QString &message)
{
    if (m_error.isEmpty())
        m_error = QStringLiteral("at byte %1: %2").arg(position()).arg(message);
    m_pos = m_end; // a failed cursor reads nothing more
    return false;
}

void JsonCursor::skipWhitespaceRun()
{
    while (m_pos < m_end && (*m_pos == ' ' || *m_pos == '\n' || *m_pos == '\r' || *m_pos == '\t'))
        ++m_pos;
}

bool JsonCursor::expect(char c)
{
    skipWhitespace();
    if (m_pos >= m_end)
        return fail(QStringLiteral("unexpected end of JSON, expected '%1'").arg(QLatin1Char(c)));
    if (*m_pos != c)
        return fail(QStringLiteral("expected '%1', found %2").arg(QLatin1Char(c)).arg(printable(*m_pos)));
    ++m_pos;
    return true;
}

const char *JsonCursor::typeName(Type t)
{
    switch (t) {
    case Type::Object: return "an object";
    case Type::Array: return "a list";
    case Type::String: return "a string";
    case Type::Number: return "a number";
    case Type::Bool: return "a boolean";
    case Type::Null: return "null";
    case Type::Invalid: break;
    }
    return "invalid JSON";
}

JsonCursor::Type JsonCursor::peekType()
{
    skipWhitespace();
    if (m_pos >= m_end)
        return Type::Invalid;
    switch (*m_pos) {
    case '{': return Type::Object;
    case '[': return Type::Array;
    case '"': return Type::String;
    case 't': case 'f': return Type::Bool;
    case 'n': return Type::Null;
    case 'N': case 'I': return m_allowNonFinite ? Type::Number : Type::Invalid;
    default:
        return (*m_pos == '-' || isDigit(*m_pos)) ? Type::Number : Type::Invalid;
    }
}

bool JsonCursor::enter()
{
    if (++m_depth > kMaxDepth)
        return fail(QStringLiteral("JSON nested more than %1 levels deep").arg(kMaxDepth));
    if (m_exact && size_t(m_depth) >= m_members.size())
        m_members.resize(size_t(m_depth) + 1);
    return true;
}

bool JsonCursor::beginObject(bool checkNames)
{
    if (!ok() || !expect('{') || !enter())
        return false;
    if (m_exact) {
        MemberNames &names = m_members[size_t(m_depth)];
        names.check = checkNames;
        names.few.clear();
        names.many.clear();
    }
    return true;
}

bool JsonCursor::beginArray() { return ok() && expect('[') && enter(); }

// False when the current object named `key` before. An exact cursor refuses such an
// object: which of the two values a reader takes is anyone's guess (Python's json
// keeps the last).
bool JsonCursor::noteMember(std::string_view key)
{
    MemberNames &names = m_members[size_t(m_depth)];
    bool repeated = false;
    if (names.many.empty() && names.few.size() < kLinearMemberNames) {
        repeated = std::find(names.few.cbegin(), names.few.cend(), key) != names.few.cend();
        if (!repeated)
            names.few.emplace_back(key);
    } else {
        if (names.many.empty()) {
            names.many.reserve(2 * kLinearMemberNames);
            for (std::string &k : names.few)
                names.many.insert(std::move(k));
            names.few.clear();
        }
        repeated = !names.many.emplace(key).second;
    }
    return !repeated;
}

bool JsonCursor::nextMember(bool &first, std::string_view &key, std::string &keyStorage)
{
    if (!ok())
        return false;
    skipWhitespace();
    if (m_pos >= m_end)
        return fail(QStringLiteral("unexpected end of JSON inside an object"));
    if (*m_pos == '}') {
        ++m_pos;
        --m_depth;
        return false;
    }
    if (!first) {
        if (*m_pos != ',')
            return fail(QStringLiteral("expected ',' or '}', found %1").arg(printable(*m_pos)));
        ++m_pos;
        skipWhitespace();
        if (m_pos < m_end && *m_pos == '}')
            return fail(QStringLiteral("trailing comma in an object"));
    }
    first = false;
    if (m_pos >= m_end || *m_pos != '"')
        return fail(m_pos >= m_end ? QStringLiteral("unexpected end of JSON, expected a member name")
                                   : QStringLiteral("expected a quoted member name, found %1").arg(printable(*m_pos)));
    const char *keyStart = m_pos;
    if (!readString(key, keyStorage))
        return false;
    if (m_exact && m_members[size_t(m_depth)].check && !noteMember(key)) {
        m_pos = keyStart; // the message points at the second one's name
        return failDuplicate(key);
    }
    return expect(':');
}

bool JsonCursor::nextElement(bool &first)
{
    if (!ok())
        return false;
    skipWhitespace();
    if (m_pos >= m_end)
        return fail(QStringLiteral("unexpected end of JSON inside a list"));
    if (*m_pos == ']') {
        ++m_pos;
        --m_depth;
        return false;
    }
    if (!first) {
        if (*m_pos != ',')
            return fail(QStringLiteral("expected ',' or ']', found %1").arg(printable(*m_pos)));
        ++m_pos;
        skipWhitespace();
        if (m_pos < m_end && *m_pos == ']')
            return fail(QStringLiteral("trailing comma in a list"));
    }
    first = false;
    return true;
}

// Checks one multi-byte UTF-8 sequence starting at p (a byte >= 0x80) and moves past it.
bool JsonCursor::checkUtf8(const char *&p)
{
    const uchar c = uchar(*p);
    int extra;
    uint cp;
    if (c >= 0xC2 && c <= 0xDF) { extra = 1; cp = c & 0x1F; }
    else if (c >= 0xE0 && c <= 0xEF) { extra = 2; cp = c & 0x0F; }
    else if (c >= 0xF0 && c <= 0xF4) { extra = 3; cp = c & 0x07; }
    else {
        m_pos = p;
        return fail(QStringLiteral("invalid UTF-8 (byte 0x%1)").arg(c, 2, 16, QLatin1Char('0')));
    }
    if (m_end - p <= extra) {
        m_pos = p;
        return fail(QStringLiteral("invalid UTF-8 (truncated sequence)"));
    }
    for (int i = 1; i <= extra; ++i) {
        const uchar cc = uchar(p[i]);
        if ((cc & 0xC0) != 0x80) {
            m_pos = p;
            return fail(QStringLiteral("invalid UTF-8 (bad continuation byte)"));
        }
        cp = (cp << 6) | (cc & 0x3F);
    }
    if ((extra == 2 && cp < 0x800) || (extra == 3 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF)) {
        m_pos = p;
        return fail(QStringLiteral("invalid UTF-8 (overlong form or surrogate)"));
    }
    p += extra + 1;
    return true;
}

namespace {
// Where decoded string bytes go: a std::string, or back into the input itself
// (decoding only ever shrinks a string, so the write position never passes the read one).
struct StringSink {
    std::string &s;
    void push_back(char c) { s.push_back(c); }
    void append(const char *p, size_t n) { s.append(p, n); }
    void reset(const char *p, size_t n) { s.assign(p, n); }
    std::string_view view(const char *) const { return std::string_view(s); }
};
struct InPlaceSink {
    char *begin;
    char *w = nullptr;
    void push_back(char c) { *w++ = c; }
    void append(const char *p, size_t n) { memmove(w, p, n); w += n; }
    void reset(const char *, size_t n) { w = begin + n; }
    std::string_view view(const char *) const { return std::string_view(begin, size_t(w - begin)); }
};
} // namespace

bool JsonCursor::readString(std::string_view &out, std::string &storage)
{
    StringSink sink{storage};
    return readStringInto(out, sink);
}

bool JsonCursor::readStringInPlace(std::string_view &out)
{
    skipWhitespace();
    InPlaceSink sink{const_cast<char *>(m_pos + 1)};
    return readStringInto(out, sink);
}

namespace {

// The 4 hex digits at `h` (before `end`) as a number.
bool readHex4(const char *h, const char *end, uint &v)
{
    if (end - h < 4)
        return false;
    v = 0;
    for (int i = 0; i < 4; ++i) {
        const int d = hexValue(h[i]);
        if (d < 0)
            return false;
        v = (v << 4) | uint(d);
    }
    return true;
}

} // namespace

bool JsonCursor::readUnicodeEscape(const char *&p, uint &cp)
{
    if (!readHex4(p, m_end, cp)) {
        m_pos = p;
        return fail(QStringLiteral("invalid \\u escape"));
    }
    p += 4;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        uint low;
        if (m_end - p < 6 || p[0] != '\\' || p[1] != 'u' || !readHex4(p + 2, m_end, low) || low < 0xDC00 || low > 0xDFFF) {
            m_pos = p;
            return fail(QStringLiteral("unpaired surrogate in a \\u escape"));
        }
        p += 6;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        m_pos = p;
        return fail(QStringLiteral("unpaired surrogate in a \\u escape"));
    }
    return true;
}

template<typename Sink>
bool JsonCursor::readStringInto(std::string_view &out, Sink &storage)
{
    if (!ok())
        return false;
    skipWhitespace();
    if (m_pos >= m_end || *m_pos != '"')
        return fail(m_pos >= m_end ? QStringLiteral("unexpected end of JSON, expected a string")
                                   : QStringLiteral("expected a string, found %1").arg(printable(*m_pos)));
    const char *start = ++m_pos;
    const char *p = start;
    // Fast path: no escapes, the view points into the input.
    while ((p = endOfPlainRun(p, m_end)) < m_end) {
        const char c = *p;
        if (c == '"') {
            out = std::string_view(start, size_t(p - start));
            m_pos = p + 1;
            return true;
        }
        if (c == '\\')
            break;
        if (uchar(c) < 0x20) {
            m_pos = p;
            return fail(QStringLiteral("unescaped control character in a string"));
        }
        if (!checkUtf8(p)) // c >= 0x80: endOfPlainRun stops at nothing else
            return false;
    }
    storage.reset(start, size_t(p - start));
    while (p < m_end) {
        if (const char *runEnd = endOfPlainRun(p, m_end); runEnd != p) {
            storage.append(p, size_t(runEnd - p));
            p = runEnd;
            continue;
        }
        const char c = *p;
        if (c == '"') {
            out = storage.view(start);
            m_pos = p + 1;
            return true;
        }
        if (uchar(c) < 0x20) {
            m_pos = p;
            return fail(QStringLiteral("unescaped control character in a string"));
        }
        if (uchar(c) >= 0x80) {
            const char *q = p;
            if (!checkUtf8(p))
                return false;
            storage.append(q, size_t(p - q));
            continue;
        }
        // c is '\\' here: endOfPlainRun stops at nothing else.
        if (p + 1 >= m_end)
            break;
        const char e = p[1];
        p += 2;
        switch (e) {
        case '"': storage.push_back('"'); break;
        case '\\': storage.push_back('\\'); break;
        case '/': storage.push_back('/'); break;
        case 'b': storage.push_back('\b'); break;
        case 'f': storage.push_back('\f'); break;
        case 'n': storage.push_back('\n'); break;
        case 'r': storage.push_back('\r'); break;
        case 't': storage.push_back('\t'); break;
        case 'u': {
            uint cp;
            if (!readUnicodeEscape(p, cp))
                return false;
            std::string tmp;
            appendUtf8(tmp, cp);
            storage.append(tmp.data(), tmp.size());
            break;
        }
        default:
            m_pos = p - 1;
            return fail(QStringLiteral("invalid escape \\%1").arg(printable(e)));
        }
    }
    m_pos = m_end;
    return fail(QStringLiteral("unterminated string"));
}

bool JsonCursor::readString(QString &out)
{
    std::string storage;
    std::string_view v;
    if (!readString(v, storage))
        return false;
    out = QString::fromUtf8(v.data(), qsizetype(v.size()));
    return true;
}

bool JsonCursor::readNumberToken(const char *&start, bool &isInteger)
{
    skipWhitespace();
    start = m_pos;
    const char *p = m_pos;
    isInteger = true;
    if (p < m_end && *p == '-')
        ++p;
    if (p >= m_end || !isDigit(*p))
        return fail(QStringLiteral("invalid number"));
    if (*p == '0') {
        ++p;
    } else {
        while (p < m_end && isDigit(*p))
            ++p;
    }
    if (p < m_end && *p == '.') {
        isInteger = false;
        ++p;
        if (p >= m_end || !isDigit(*p)) {
            m_pos = p;
            return fail(QStringLiteral("invalid number (digits expected after '.')"));
        }
        while (p < m_end && isDigit(*p))
            ++p;
    }
    if (p < m_end && (*p == 'e' || *p == 'E')) {
        isInteger = false;
        ++p;
        if (p < m_end && (*p == '+' || *p == '-'))
            ++p;
        if (p >= m_end || !isDigit(*p)) {
            m_pos = p;
            return fail(QStringLiteral("invalid number (digits expected in the exponent)"));
        }
        while (p < m_end && isDigit(*p))
            ++p;
    }
    m_pos = p;
    return true;
}

bool JsonCursor::readInt64(qint64 &out)
{
    if (!ok())
        return false;
    // Fast path, the usual integer of a shape or an offset: up to 18 digits (no
    // overflow possible), no leading zero, no fraction or exponent behind it. A
    // capture's header holds about 200,000 of them.
    skipWhitespace();
    const bool negative = m_pos < m_end && *m_pos == '-';
    const char *digits = m_pos + (negative ? 1 : 0);
    const char *p = digits;
    qint64 value = 0;
    while (p < m_end && isDigit(*p) && p - digits < 18)
        value = value * 10 + (*p++ - '0');
    const bool ends = p >= m_end || !(isDigit(*p) || *p == '.' || *p == 'e' || *p == 'E');
    if (p > digits && ends && (*digits != '0' || p - digits == 1)) {
        out = negative ? -value : value;
        m_pos = p;
        return true;
    }
    if (peekType() != Type::Number)
        return fail(QStringLiteral("expected an integer, found %1").arg(QLatin1String(typeName(peekType()))));
    const char *start;
    bool isInteger;
    const char *before = m_pos;
    if (!readNumberToken(start, isInteger))
        return false;
    if (!isInteger) {
        m_pos = before;
        return fail(QStringLiteral("expected an integer, found a non-integer number"));
    }
    const auto r = std::from_chars(start, m_pos, out);
    if (r.ec != std::errc() || r.ptr != m_pos) {
        const QString text = numberText(start, m_pos);
        m_pos = start;
        return failRefused(QStringLiteral("integer %1 is out of range (a JSON integer here lies in -2^63 .. 2^63-1)").arg(text));
    }
    return true;
}

bool JsonCursor::failRefused(const QString &message)
{
    if (ok())
        m_refused = true;
    return fail(message);
}

bool JsonCursor::failDuplicate(std::string_view key)
{
    const QString shown = QString::fromUtf8(key.data(), qsizetype(key.size()));
    return failRefused(QStringLiteral("the member '%1' appears twice in one object")
                           .arg(shown.size() <= 100 ? shown : shown.left(100) + QLatin1String("...")));
}

bool JsonCursor::readBool(bool &out)
{
    if (!ok())
        return false;
    skipWhitespace();
    if (m_end - m_pos >= 4 && memcmp(m_pos, "true", 4) == 0) {
        m_pos += 4;
        out = true;
        return true;
    }
    if (m_end - m_pos >= 5 && memcmp(m_pos, "false", 5) == 0) {
        m_pos += 5;
        out = false;
        return true;
    }
    return fail(QStringLiteral("expected true or false"));
}

bool JsonCursor::readNull()
{
    if (!ok())
        return false;
    skipWhitespace();
    if (m_end - m_pos >= 4 && memcmp(m_pos, "null", 4) == 0) {
        m_pos += 4;
        return true;
    }
    return fail(QStringLiteral("expected null"));
}

bool JsonCursor::readValue(QJsonValue &out) { return ok() && readValueInner(out); }
bool JsonCursor::skipValue() { return ok() && skipValueInner(); }

// Recursion is bounded by enter(): every level is an object or a list begun here.
bool JsonCursor::readValueInner(QJsonValue &out)
{
    switch (peekType()) {
    case Type::Object: {
        QJsonObject obj;
        if (!beginObject())
            return false;
        bool first = true;
        std::string_view key;
        std::string keyStorage;
        while (nextMember(first, key, keyStorage)) {
            const QString k = QString::fromUtf8(key.data(), qsizetype(key.size()));
            QJsonValue v;
            if (!readValueInner(v))
                return false;
            obj.insert(k, v);
        }
        out = obj;
        return ok();
    }
    case Type::Array: {
        QJsonArray arr;
        if (!beginArray())
            return false;
        bool first = true;
        while (nextElement(first)) {
            QJsonValue v;
            if (!readValueInner(v))
                return false;
            arr.append(v);
        }
        out = arr;
        return ok();
    }
    case Type::String: {
        QString s;
        if (!readString(s))
            return false;
        out = s;
        return true;
    }
    case Type::Bool: {
        bool b;
        if (!readBool(b))
            return false;
        out = b;
        return true;
    }
    case Type::Null:
        out = QJsonValue();
        return readNull();
    case Type::Number:
        return readNumber(out);
    case Type::Invalid:
        break;
    }
    if (m_pos >= m_end)
        return fail(QStringLiteral("unexpected end of JSON, expected a value"));
    return fail(QStringLiteral("expected a JSON value, found %1").arg(printable(*m_pos)));
}

bool JsonCursor::readNumber(QJsonValue &out)
{
    static const struct { const char *text; double value; } kNonFinite[] = {
        {"NaN", std::numeric_limits<double>::quiet_NaN()},
        {"Infinity", std::numeric_limits<double>::infinity()},
        {"-Infinity", -std::numeric_limits<double>::infinity()},
    };
    if (m_allowNonFinite) {
        for (const auto &nf : kNonFinite) {
            const size_t n = strlen(nf.text);
            if (size_t(m_end - m_pos) >= n && memcmp(m_pos, nf.text, n) == 0) {
                m_pos += n;
                out = nf.value;
                return true;
            }
        }
    }
    const char *start;
    bool isInteger;
    if (!readNumberToken(start, isInteger))
        return false;
    if (isInteger) {
        qint64 i;
        const auto r = std::from_chars(start, m_pos, i);
        if (r.ec == std::errc() && r.ptr == m_pos) {
            out = i;
            return true;
        }
        if (m_exact) {
            const QString text = numberText(start, m_pos);
            m_pos = start;
            return failRefused(QStringLiteral("integer %1 is out of range (a JSON integer here lies in -2^63 .. 2^63-1)").arg(text));
        }
    }
    double d = 0;
    const auto r = std::from_chars(start, m_pos, d);
    if (r.ec == std::errc::result_out_of_range && m_exact) {
        // libstdc++ says so both for overflow and for a non-zero number that
        // rounds to 0 (Python's float() gives inf and 0.0: strictjson refuses both).
        const QString text = numberText(start, m_pos);
        m_pos = start;
        return failRefused(QStringLiteral("number %1 is out of range (beyond what a double holds)").arg(text));
    }
    if (r.ec != std::errc() && r.ec != std::errc::result_out_of_range)
        return fail(QStringLiteral("invalid number"));
    out = d;
    return true;
}

bool JsonCursor::skipValueInner()
{
    switch (peekType()) {
    case Type::Object: {
        if (!beginObject())
            return false;
        bool first = true;
        std::string_view key;
        std::string keyStorage;
        while (nextMember(first, key, keyStorage)) {
            if (!skipValueInner())
                return false;
        }
        return ok();
    }
    case Type::Array: {
        if (!beginArray())
            return false;
        bool first = true;
        while (nextElement(first)) {
            if (!skipValueInner())
                return false;
        }
        return ok();
    }
    case Type::String: {
        std::string storage;
        std::string_view v;
        return readString(v, storage);
    }
    default: {
        QJsonValue v;
        return readValueInner(v);
    }
    }
}

bool JsonCursor::atEnd()
{
    skipWhitespace();
    return m_pos >= m_end;
}

} // namespace dimscope
