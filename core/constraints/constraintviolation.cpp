// SPDX-License-Identifier: GPL-3.0-or-later
#include "constraints/constraintviolation.h"

namespace dimscope {

QString ConstraintViolation::ruleName(Rule rule)
{
    switch (rule) {
    case Rule::Range: return QStringLiteral("range");
    case Rule::SharedDim: return QStringLiteral("shared Dim");
    case Rule::DerivedRelation: return QStringLiteral("derived relation");
    case Rule::StaticValue: return QStringLiteral("static value");
    case Rule::Rank: return QStringLiteral("rank");
    case Rule::UnknownLeaf: return QStringLiteral("unknown leaf");
    case Rule::Structure: return QStringLiteral("structure");
    case Rule::DerivedRange: return QStringLiteral("derived range");
    }
    return {};
}

} // namespace dimscope
