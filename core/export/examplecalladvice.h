// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

namespace dimscope {

class ExportHints;

// A better example call for an export that failed: torch traces one captured call and
// specializes every size that is 0 or 1 in it, so its suggested fixes (`past_len = 0`
// from a prefill call with an empty cache) are right for that call and wrong for the
// others. When another captured call has fewer Dims at 0 or 1, exporting with it as
// the example avoids those fixes altogether.
struct ExampleCallAdvice {
    int usedCall = -1;
    int proposedCall = -1;           // -1: no better call (the advice is empty)
    QStringList zeroOrOneInUsed;     // "past_len = 0"
    QStringList zeroOrOneInProposed;

    bool isValid() const { return proposedCall >= 0; }
    // "The export traced call 0, where past_len = 0 (torch fixes sizes 0 and 1 to
    // constants). Call 3 has no Dim at 0 or 1: export with it as the example call."
    QString text() const;

    // `usedCall`: the call the failed export traced (the export options' choice, or
    // the automatic one). Proposes the call with the fewest Dims at 0 or 1, strictly
    // fewer than `usedCall` has; among equals the automatic choice, then the first.
    static ExampleCallAdvice make(const ExportHints &hints, int usedCall);
};

} // namespace dimscope
