// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonValue>
#include <QString>

#include <string>
#include <string_view>

namespace dimscope {

// A strict, allocation-free JSON pull parser over a byte range (RFC 8259: UTF-8
// checked, no trailing commas, no comments). The capture reader walks the
// safetensors header and the manifest with it in one pass, building its own
// structures directly instead of a DOM: opening a capture then costs about its
// header, in time and memory.
//
// Every function returns false on failure; error() then says what and where
// ("at byte 123: expected ':'"). Once failed, a cursor stays failed.
class JsonCursor
{
public:
    JsonCursor(const char *begin, const char *end, qint64 offsetBase = 0);

    // Python's json module writes NaN, Infinity and -Infinity for non-finite
    // floats; the manifest accepts them (the safetensors header does not).
    void setAllowNonFinite(bool allow) { m_allowNonFinite = allow; }

    enum class Type { Object, Array, String, Number, Bool, Null, Invalid };
    Type peekType();                 // the type of the next value (after whitespace)
    static const char *typeName(Type t);

    bool beginObject();
    // Advances to the next member of the current object: returns true with its key,
    // or false at '}' (check ok()). `first` must start true for each object.
    bool nextMember(bool &first, std::string_view &key, std::string &keyStorage);
    bool beginArray();
    bool nextElement(bool &first);   // true when another element follows; false at ']'

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
    bool fail(const QString &message);          // sets the error at the current position
    qint64 position() const { return m_offsetBase + (m_pos - m_begin); }
    const char *rawPosition() const { return m_pos; }
    void seek(const char *pos) { m_pos = pos; }

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
    bool readValueDepth(QJsonValue &out, int depth);
    bool skipValueDepth(int depth);
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
    QString m_error;
};

} // namespace dimscope
