// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constraints/constraintset.h"
#include "export/exporterror.h"

#include <QHash>

namespace dimscope {

// Applies torch.export's "Suggested fixes:" to a ConstraintSet, like torch's own
// refine_dynamic_shapes_from_suggested_fixes: specialize (`NAME = INT` makes its uses
// static), range, equal (merge), derived (with new roots declared first). A root that
// torch declares fresh for a derived fix (`_s = Dim('_s', max=oo)`, `s = 4*_s - 3`) gets
// the bounds that keep the derived Dim within its old range (torch rejects a derived
// Dim whose min can fall below 0).
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
        QHash<QString, QString> notes;       // fix line -> what dimscope added to it, and why
    };

    // `message`: the exception text, or bare fix lines (one per line, all valid).
    static Result apply(const ConstraintSet &set, const QString &message);
    static QString applyFix(ConstraintSet *set, const SuggestedFix &fix); // error, empty when applied

private:
    // After `fix` (derived) made fix.name = a*fix.other + b with fix.other a fresh root:
    // narrows that root so fix.name stays within `old` (its range before). The note, or empty.
    static QString boundFreshRoot(ConstraintSet *set, const SuggestedFix &fix, const DimDecl &old);
};

} // namespace dimscope
