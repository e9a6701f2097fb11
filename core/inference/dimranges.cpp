// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/dimranges.h"

#include "constraints/dimdecl.h"

#include <algorithm>

namespace dimscope {

QVector<InferenceMessage> proposeDimRanges(QVector<DimGroup> *groupsPtr)
{
    QVector<DimGroup> &groups = *groupsPtr;
    QVector<InferenceMessage> warnings;
    // torch.export specializes sizes 0 and 1, so a Dim is proposed from 2 unless a call
    // had 0 or 1. A batch Dim is proposed from 1: torch traces it as >= 2 all the same
    // (2.6 and 2.14 accept min=1 without a violation) and its program then declares the
    // batch-1 calls it serves; the worker verifies that on a batch-1 slice of a call
    // (docs/worker-protocol.md, "Batch-1 slice").
    for (DimGroup &g : groups)
        g.rangeMin = std::min<qint64>(g.batch ? 1 : 2, g.minValue);
    for (int gi = 0; gi < groups.size(); ++gi) {
        const DimGroup &g = groups[gi];
        if (g.root < 0)
            continue;
        DimGroup &root = groups[g.root];
        if (g.a * root.rangeMin + g.b >= 0)
            continue;
        const qint64 need = (-g.b + g.a - 1) / g.a;
        warnings.append({InferenceMessage::Severity::Warning,
                         QStringLiteral("derived Dim '%1' = %2 would go negative for %3 < %4 (torch.export rejects that): "
                                        "the min of '%3' is raised to %4")
                             .arg(g.name, DimDecl::makeDerived(g.name, root.name, g.a, g.b).relationText(), root.name)
                             .arg(need),
                         g.name,
                         {},
                         {}});
        root.rangeMin = std::max(root.rangeMin, need);
    }
    return warnings;
}

} // namespace dimscope
