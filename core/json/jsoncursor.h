// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonValue>
#include <QString>

#include <limits>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace dimscope {

// A strict, allocation-free JSON pull parser over a byte range (RFC 8259: UTF-8
// checked, no trailing commas, no comments). The capture reader walks the
// safetensors header and the manifest with it in one pass, building its own
// structures directly instead of a DOM: opening a capture then costs about its
// header, in time and memory.
//
// Every function returns false on failure; error() then says what and where
// ("at byte 123: expected ':'"). Once failed, a cursor stays failed.
// More than 256 objects and lists nested in one another are refused.
class JsonCursor
{
public:
    static constexpr int kMaxDepth = 256;

    JsonCursor(const char *begin, const char *end, qint64 offsetBase = 0);

    // Python's json module writes NaN, Infinity and -Infinity for non-finite
    // floats; the manifest accepts them (the safetensors header does not).
    void setAllowNonFinite(bool allow) { m_allowNonFinite = allow; }
    // Refuses what cannot be read exactly, for the capture's header and manifest
    // (docs/capture-format.md, "Numbers and JSON"; the worker's reader,
    // python/dimscope/capture/strictjson.py, has the same rules, so both read the same
    // values): an integer outside -2^63 .. 2^63-1, a number too large for a double
    // (1e400) or too small to be anything but 0 (1e-400), an object that names a
    // member twice. Off, as for torch's .pt2 JSON, a duplicate's last value counts
    // and an integer too large for 64 bits is read as a double.
    void setExact(bool exact) { m_exact = exact; }

    enum class Type { Object, Array, String, Number, Bool, Null, Invalid };
    Type peekType();                 // the type of the next value (after whitespace)
    static const char *typeName(Type t);

    // `checkNames` false: an exact cursor leaves this object's member names to the
    // caller (the safetensors header indexes its 200,000 tensor names anyway).
    bool beginObject(bool checkNames = true);
    // Advances to the next member of the current object: returns true with its key,
    // or false at '}' (check ok()). `first` must start true for each object.
    bool nextMember(bool &first, std::string_view &key, std::string &keyStorage);
    bool beginArray();
    bool nextElement(bool &first);   // true when another element follows; false at ']'

    // The loops over an object's members and a list's elements, as every reader writes
    // them: `onMember(key)` (the key may point into storage that lives until the next
    // member) and `onElement()` read the value and return false to stop. True when the
    // object or list was read to its end; false when the callback stopped or the JSON
    // failed (ok() tells which, for the caller that reports them differently).
    template <typename OnMember>
    bool forEachMember(OnMember &&onMember, bool checkNames = true)
    {
        beginObject(checkNames);
        bool first = true;
        std::string_view key;
        std::string keyStorage;
        while (nextMember(first, key, keyStorage)) {
            if (!onMember(key))
                return false;
        }
        return ok();
    }
    template <typename OnElement>
    bool forEachElement(OnElement &&onElement)
    {
        beginArray();
        bool first = true;
        while (nextElement(first)) {
            if (!onElement())
                return false;
        }
        return ok();
    }
    // A list of at most `maxCount` non-negative integers (a shape, a byte range),
    // appended to `out`. False for anything else: not a list (nothing is read), an
    // element that is not such an integer, one too many, or broken JSON (then ok() is
    // false); the caller names the place.
    template <typename Ints>
    bool readNonNegativeInts(Ints &out, qsizetype maxCount = std::numeric_limits<qsizetype>::max())
    {
        if (peekType() != Type::Array)
            return false;
        return forEachElement([&] {
            qint64 d;
            if (out.size() >= maxCount || peekType() != Type::Number || !readInt64(d) || d < 0)
                return false;
            out.append(d);
            return true;
        });
    }

    // A string's decoded UTF-8 bytes: a view into the input when it has no escapes,
    // otherwise into `storage`.
    bool readString(std::string_view &out, std::string &storage);
    bool readString(QString &out);
    // Same, decoding escapes in place, over the input itself (which must then be
    // writable memory): no copy of a large string is made. The input bytes of the
    // string are overwritten.
    bool readStringInPlace(std::string_view &out);
    bool readInt64(qint64 &out);     // an integer literal (no fraction or exponent) that fits
    bool readBool(bool &out);
    bool readNull();
    bool readValue(QJsonValue &out); // any value (objects and arrays included)
    bool skipValue();
    bool atEnd();                    // only whitespace is left

    bool ok() const { return m_error.isEmpty(); }
    const QString &error() const { return m_error; }
    // The failure is JSON that an exact cursor refuses (a number out of range, a
    // member named twice), not broken JSON: callers name the place.
    bool refused() const { return m_refused; }
    bool fail(const QString &message);          // sets the error at the current position
    // For a caller that checks an object's member names itself (beginObject(false)):
    // fails, as refused, at the second `key` of the object.
    bool failDuplicate(std::string_view key);
    qint64 position() const { return m_offsetBase + (m_pos - m_begin); }
    const char *rawPosition() const { return m_pos; }
    // How many objects and lists enclose the position; seek() to a place read before
    // takes the depth it had there.
    int depth() const { return m_depth; }
    void seek(const char *pos) { m_pos = pos; }
    void seek(const char *pos, int depth) { m_pos = pos; m_depth = depth; }

private:
    // Inline for the usual case, no whitespace at all: it is asked before every
    // token, and a call for nothing was 7% of a capture's open.
    void skipWhitespace()
    {
        if (m_pos < m_end && uchar(*m_pos) > ' ')
            return;
        skipWhitespaceRun();
    }
    void skipWhitespaceRun();
    bool expect(char c);
    bool readNumberToken(const char *&start, bool &isInteger);
    bool readValueInner(QJsonValue &out);
    bool skipValueInner();
    bool readNumber(QJsonValue &out);
    bool failRefused(const QString &message);
    bool enter();                    // one level deeper, or fails past kMaxDepth
    bool noteMember(std::string_view key);
    bool checkUtf8(const char *&p);
    template<typename Sink> bool readStringInto(std::string_view &out, Sink &sink);
    // `p` just after "\u": decodes the code point (joining a surrogate pair) and
    // moves `p` past it; fails naming the bad escape.
    bool readUnicodeEscape(const char *&p, uint &cp);

    const char *m_begin;
    const char *m_end;
    const char *m_pos;
    qint64 m_offsetBase;
    bool m_allowNonFinite = false;
    bool m_exact = false;
    bool m_refused = false;
    int m_depth = 0;
    // The member names of each open object, by depth (slots are reused, so a
    // document costs no allocation per object).
    struct MemberNames {
        bool check = true;
        std::vector<std::string> few;          // linear search while small
        std::unordered_set<std::string> many;  // then hashed
    };
    std::vector<MemberNames> m_members;
    QString m_error;
};

} // namespace dimscope
