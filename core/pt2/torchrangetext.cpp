// SPDX-License-Identifier: GPL-3.0-or-later
#include "pt2/torchrangetext.h"

namespace dimscope {

QString TorchRangeText::upper(const std::optional<qint64> &max)
{
    return max ? QString::number(*max) : QStringLiteral("oo");
}

QString TorchRangeText::range(const std::optional<qint64> &min, const std::optional<qint64> &max)
{
    return QStringLiteral("[%1, %2]").arg(min ? QString::number(*min) : QStringLiteral("-oo"), upper(max));
}

} // namespace dimscope
