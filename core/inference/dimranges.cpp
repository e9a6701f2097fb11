// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/dimranges.h"

#include "constraints/dimdecl.h"

#include <algorithm>

namespace dimscope {

QVector<InferenceMessage> proposeDimRanges(QVector<DimGroup> *groupsPtr)
{
    QVector<DimGroup> &groups = *groupsPtr;
    QVector<InferenceMessage> warnings;
    for (DimGroup &g : groups)
        g.rangeMin = std::min<qint64>(2, g.minValue);
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
