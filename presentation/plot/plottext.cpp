// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot/plottext.h"

#include "text/rangetext.h"

#include <QCoreApplication>

#include <cmath>

namespace dimscope {

namespace {
QString tr(const char *text) { return QCoreApplication::translate("dimscope::PlotPanel", text); }
QString number(double value) { return QString::number(value, 'g', 15); }
} // namespace

QString PlotText::rangeText(double lower, double upper)
{
    return QStringLiteral("[%1, %2]").arg(number(lower), std::isinf(upper) ? RangeText::infinity() : number(upper));
}

QString PlotText::title(const QString &leafPath, int dim, const QString &dimName, const QString &range)
{
    QString text = tr("%1 dim %2").arg(leafPath, QString::number(dim));
    if (!dimName.isEmpty())
        text += tr(" — Dim %1").arg(dimName);
    if (!dimName.isEmpty() && !range.isEmpty())
        text += QLatin1Char(' ') + range;
    return text;
}

QString PlotText::pointText(int call, double value, const QString &dimName, bool violating)
{
    QString text = dimName.isEmpty() ? tr("call %1: %2").arg(QString::number(call), number(value))
                                     : tr("call %1: %2 = %3").arg(QString::number(call), dimName, number(value));
    if (violating)
        text += tr(" (outside the Dim's range)");
    return text;
}

QString PlotText::offscreenBoundText(const PlotRange::OffscreenBound &bound)
{
    const QString name = bound.bound == PlotRange::Bound::Min ? tr("min") : tr("max");
    return bound.above ? tr("%1 %2 ↑").arg(name, number(bound.value)) : tr("↓ %1 %2").arg(name, number(bound.value));
}

} // namespace dimscope
