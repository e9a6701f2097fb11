// SPDX-License-Identifier: GPL-3.0-or-later
#include "constraintsummary.h"

#include <QStringList>

namespace dimscope::test {

QString summarizeDims(const ConstraintSet &set)
{
    QStringList out;
    for (const DimDecl &d : set.dims()) {
        if (d.isDerived())
            out << QStringLiteral("%1=%2").arg(d.name, d.relationText());
        else
            out << QStringLiteral("%1[%2,%3]")
                       .arg(d.name, d.min ? QString::number(*d.min) : QStringLiteral("-"),
                            d.max ? QString::number(*d.max) : QStringLiteral("oo"));
    }
    return out.join(QLatin1Char(' '));
}

QString summarizeLeaves(const ConstraintSet &set)
{
    QStringList out;
    for (const LeafConstraint &l : set.leaves()) {
        QStringList dims;
        bool any = false;
        for (const DimAssignment &a : l.dims) {
            dims << a.toString();
            any = any || !a.isStatic();
        }
        if (any)
            out << QStringLiteral("%1(%2)").arg(l.path, dims.join(QLatin1Char(',')));
    }
    return out.join(QLatin1Char(' '));
}

} // namespace dimscope::test
