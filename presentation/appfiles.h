// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace dimscope {

// Files that ship with dimscope, found next to an installed binary
// (<prefix>/share/dimscope, <prefix>/share/doc/dimscope) or, for a binary run from
// its build tree, in the source tree it was built from. Empty when neither has them.
struct AppFiles {
    // The bundled demo project (resources/demo/demo.dimscope).
    static QString demoProject();
    // The folder of the Markdown documentation (docs/).
    static QString documentationDir();
};

} // namespace dimscope
