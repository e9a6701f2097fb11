// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

class QTextStream;

namespace dimscope {
struct DimIntent;
}

// After a successful export: reads the .pt2 back with Pt2Reader and prints, per user
// input, its sizes with torch's symbols mapped to the user's Dim names, the range
// constraints, and every dim the constraints made dynamic that came out static.
// Returns the number of such specialized dims, or -1 when the archive cannot be read
// (the error is printed).
int printExportReadBack(QTextStream &out, QTextStream &err, const QString &pt2, const dimscope::DimIntent &intent);
