// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

class QTextStream;

namespace dimscope {
struct ProgramReadBack;
}

// After a successful export: prints a program as ExportRun read it back, per user
// input its sizes in the user's Dim names (torch's symbols beside them), the range
// constraints, and every dim the constraints made dynamic that came out static.
// Returns the number of such specialized dims, or -1 when the archive could not be
// read (the error is printed).
int printExportReadBack(QTextStream &out, QTextStream &err, const QString &pt2, const dimscope::ProgramReadBack &back);
