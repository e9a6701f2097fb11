// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/examplecalladvice.h"

#include "export/exporthints.h"

#include <QCoreApplication>

namespace dimscope {

ExampleCallAdvice ExampleCallAdvice::make(const ExportHints &hints, int usedCall)
{
    ExampleCallAdvice advice;
    const QVector<ExampleCallHint> &calls = hints.calls();
    if (usedCall < 0 || usedCall >= calls.size() || calls.at(usedCall).zeroOrOne.isEmpty())
        return advice;
    advice.usedCall = usedCall;
    advice.zeroOrOneInUsed = calls.at(usedCall).zeroOrOne;
    int best = -1;
    const auto better = [&](int c) {
        if (best < 0)
            return true;
        const qsizetype n = calls.at(c).zeroOrOne.size(), bestN = calls.at(best).zeroOrOne.size();
        return n < bestN || (n == bestN && c == hints.automaticCall());
    };
    for (int c = 0; c < calls.size(); ++c) {
        if (c != usedCall && calls.at(c).zeroOrOne.size() < advice.zeroOrOneInUsed.size() && better(c))
            best = c;
    }
    if (best >= 0) {
        advice.proposedCall = best;
        advice.zeroOrOneInProposed = calls.at(best).zeroOrOne;
    }
    return advice;
}

QString ExampleCallAdvice::text() const
{
    if (!isValid())
        return {};
    const auto tr = [](const char *s) { return QCoreApplication::translate("dimscope::ExampleCallAdvice", s); };
    const QString used = tr("The export traced call %1, where %2 (torch fixes sizes 0 and 1 to constants).")
                             .arg(usedCall)
                             .arg(zeroOrOneInUsed.join(QStringLiteral(", ")));
    const QString proposed = zeroOrOneInProposed.isEmpty()
                                 ? tr("Call %1 has no Dim at 0 or 1: export with it as the example call.").arg(proposedCall)
                                 : tr("Call %1 has fewer (%2): export with it as the example call.")
                                       .arg(proposedCall)
                                       .arg(zeroOrOneInProposed.join(QStringLiteral(", ")));
    return used + QLatin1Char(' ') + proposed;
}

} // namespace dimscope
