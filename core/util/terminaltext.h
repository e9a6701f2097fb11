// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringView>

namespace dimscope {

// Text that came from a file (a capture's producer, a key path, a Dim name, a .pt2's
// input names, a worker's log line), made safe to print on a terminal or to show as
// plain text: the one escaping function of dimscope (docs/security.md, "Text from
// files in the terminal").
//
// Why: a terminal acts on what it is sent. ESC and the C1 controls start sequences
// that retitle it, write the clipboard (OSC 52) or clear the screen; CR and LF start
// fake lines ("every dim ... is symbolic"); bidi overrides and zero-width characters
// make a name read as another. Such characters are written as visible escapes:
//   \n \r \t                        for line feed, carriage return, tab;
//   \xNN                            for the other C0 controls, DEL and C1 (U+0080-U+009F);
//   \uNNNN (\UNNNNNNNN past U+FFFF) for format characters (Unicode category Cf: the
//                                   bidi controls U+202A-U+202E, U+2066-U+2069, U+061C,
//                                   the zero-width U+200B-U+200F, U+2060, U+FEFF, U+180E,
//                                   soft hyphen, tag characters, ...), the line and
//                                   paragraph separators U+2028/U+2029 and unpaired
//                                   surrogates.
// Everything else (other non-ASCII text, backslashes) is shown as it is.
class TerminalText
{
public:
    // Characters kept at each end of an elided name.
    static constexpr qsizetype kEdge = 100;

    // Every character above escaped, line feeds included: one field stays on one line.
    static QString escaped(QStringView text);
    // The same, but line feeds and tabs are kept: for a whole text that dimscope laid
    // out in lines itself (the CLI's output as a last guard, a multi-line message).
    static QString escapedLines(QStringView text);
    // A name as one field of a line or a message: escaped(), and, when longer than
    // 2 * kEdge characters and the marker, its first and last kEdge characters around
    // "…(N characters)…" (N counts the whole name), so that a 1 MB key path prints as
    // about 220 characters.
    static QString field(QStringView text);
    // field() in single quotes, as messages quote names: 'input_ids'.
    static QString quoted(QStringView text);

    // The same for a QString (and what builds one: "a" + b).
    static QString escaped(const QString &text) { return escaped(QStringView(text)); }
    static QString escapedLines(const QString &text) { return escapedLines(QStringView(text)); }
    static QString field(const QString &text) { return field(QStringView(text)); }
    static QString quoted(const QString &text) { return quoted(QStringView(text)); }

    // Whether `c` (a code point; an unpaired surrogate is given as itself) is written
    // escaped by escaped().
    static bool isEscaped(char32_t c);
};

} // namespace dimscope
