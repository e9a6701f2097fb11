// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/phasedexportoutcome.h"

#include <QString>
#include <QStringList>
#include <QVector>

namespace dimscope {

// What a partial result means and what to do about it, in dimscope's words: for each
// captured call no program serves, why the programs rejected it (a guard on a leaf dim,
// or inputs another phase passes), the Dims whose ranges or relations those guards
// narrowed (to widen), and whether exporting a program per phase would serve it.
// Empty (isEmpty()) when every call is served.
struct UnservedAdvice {
    QVector<int> calls;        // served by no program, in capture order
    QStringList reasons;       // one per call: "call 0: llama.pt2 needs input_ids dim 1 == 1"
    QStringList dimsToWiden;   // Dims named by the rejecting guards, each once
    bool exportPhases = false; // the export ran without the fix loop: a program per phase would serve them

    bool isEmpty() const { return calls.isEmpty(); }
    // The paragraph under the headline (plain text, one reason a line).
    QString text() const;

    // `fixLoop`: the document's export option as it is now (off: phases are the remedy).
    static UnservedAdvice make(const PhasedExportOutcome &outcome, bool fixLoop);
    // Program `program` as a call's server is named: "llava.phase2.pt2", or in an
    // archive of several "program phase2 of llava.pt2".
    static QString programName(const PhasedExportOutcome &outcome, int program);
    // Why a program rejected a call, in dimscope's words.
    static QString rejectionReason(const CallVerification &row);
};

} // namespace dimscope
