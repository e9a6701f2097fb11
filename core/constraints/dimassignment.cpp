// SPDX-License-Identifier: GPL-3.0-or-later
#include "constraints/dimassignment.h"

namespace dimscope {

DimAssignment DimAssignment::fromString(const QString &text)
{
    if (text == QLatin1String("static"))
        return makeStatic();
    if (text == QLatin1String("auto"))
        return makeAuto();
    if (text == QLatin1String("dynamic"))
        return makeDynamic();
    return named(text);
}

QString DimAssignment::toString() const
{
    switch (kind) {
    case Kind::Static: return QStringLiteral("static");
    case Kind::Auto: return QStringLiteral("auto");
    case Kind::Dynamic: return QStringLiteral("dynamic");
    case Kind::Named: return dim;
    }
    return {};
}

} // namespace dimscope
