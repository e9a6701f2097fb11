// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

class QAction;

namespace dimscope::test {

// Triggers `action` (which opens a QFileDialog) and answers the dialog with `path`,
// typed like a user would (selectFile() races the dialog's file system model). The
// dialog is answered from a timer inside its event loop, again while it is still up,
// and rejected after ~5 s so a slow machine cannot hang the test. Returns how many
// times it answered: 1..250 when the dialog took the file.
int answerFileDialog(QAction *action, const QString &path);

} // namespace dimscope::test
