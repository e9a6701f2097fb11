// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/unnameddims.h"

namespace dimscope {

QVector<GuardFixes::Fix> UnnamedDims::lastResort(const WorkerFailure &failure, const ConstraintSet &set)
{
    QVector<GuardFixes::Fix> fixes;
    if (failure.kind != QLatin1String("constraint_violation"))
        return fixes;
    for (const QString &name : failure.names) {
        if (!set.dim(name))
            continue; // a Dim.DYNAMIC already: torch names it by its source
        fixes.append({QStringLiteral("%1 = Dim.DYNAMIC").arg(name),
                      QStringLiteral("torch could not decide its guards on %1 over the Dim's range and suggested no "
                                     "fix: %1's dims are exported as Dim.DYNAMIC, unnamed; torch keeps them symbolic, "
                                     "raises if it specializes them, and the program checks its guards on every call")
                          .arg(name)});
    }
    return fixes;
}

} // namespace dimscope
