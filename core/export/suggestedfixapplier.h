// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constraints/constraintset.h"
#include "export/exporterror.h"

namespace dimscope {

// Applies torch.export's "Suggested fixes:" to a ConstraintSet, like torch's own
// refine_dynamic_shapes_from_suggested_fixes: specialize (`NAME = INT` makes its uses
// static), range, equal (merge), derived (with new roots declared first).
class SuggestedFixApplier
{
public:
    struct Unapplied {
        QString line;
        QString reason;
    };
    struct Result {
        ConstraintSet constraints;
        QVector<SuggestedFix> applied;
        QVector<Unapplied> unapplied;
        QVector<ExportViolation> violations; // the message's violation lines, parsed
    };

    // `message`: the exception text, or bare fix lines (one per line, all valid).
    static Result apply(const ConstraintSet &set, const QString &message);
    static QString applyFix(ConstraintSet *set, const SuggestedFix &fix); // error, empty when applied
};

} // namespace dimscope
