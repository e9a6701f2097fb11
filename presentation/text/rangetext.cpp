// SPDX-License-Identifier: GPL-3.0-or-later
#include "text/rangetext.h"

namespace dimscope {

QString RangeText::infinity() { return QStringLiteral("∞"); }

QString RangeText::upper(const std::optional<qint64> &max) { return max ? QString::number(*max) : infinity(); }

QString RangeText::range(const std::optional<qint64> &min, const std::optional<qint64> &max)
{
    const QString lower = min ? QString::number(*min) : QLatin1Char('-') + infinity();
    return QStringLiteral("[%1, %2]").arg(lower, upper(max));
}

} // namespace dimscope
