// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace dimscope {

// Text from files (paths, key paths, model references) as Python source.
class PythonLiteral
{
public:
    // A double-quoted str literal that reads back as `text`: backslash and quote
    // escaped, and every character TerminalText escapes (controls, bidi and zero-width
    // characters, line separators) written as \xNN, \uNNNN or \UNNNNNNNN, so that the
    // literal stays on its line and reads as what it holds.
    static QString string(const QString &text);
};

} // namespace dimscope
