// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace dimscope::test {

// Records a capture the way a user does, with the real recorder under
// scripts/torch-python: writes `modelSource` to DIR/MODULE.py, instantiates
// `className` (seeded), and runs `body` (Python statements using `m`, the model,
// inside `with rec(m):`), storing up to `calls` calls in `capture`. Returns an empty
// string, or what went wrong (the recorder's output).
QString recordCapture(const QString &dir, const QString &module, const QString &modelSource,
                      const QString &className, const QString &body, const QString &capture, int calls);

} // namespace dimscope::test
