// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/phasedexportoutcome.h"
#include "export/programreadback.h"

#include <QDateTime>
#include <QString>
#include <QVector>

namespace dimscope {

// One finished export of the document, as ExportResults keeps it in its history for
// Compare (issue 28, problem 12): what it produced and its programs read back, with
// its number in the document's session and when it ended.
struct ExportRecord {
    int number = 0;              // 1, 2, … in the order the document's exports ended
    QDateTime finished;
    PhasedExportOutcome outcome;
    QVector<ProgramReadBack> readBacks; // parallel to outcome.programs

    // "Export 3 (21:35:10): 2 program(s), every call served" for a picker.
    QString label() const;
    // The programs in a few words: "2 programs, every call served", "failed
    // (constraint_violation)", "1 program(s), calls 0, 4 unserved".
    QString verdict() const;
};

} // namespace dimscope
