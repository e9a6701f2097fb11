// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/phasedexportoutcome.h"

#include "export/exportphases.h"

#include <algorithm>

namespace dimscope {

QVector<int> PhasedExportOutcome::servedCalls() const
{
    QVector<int> served;
    for (const ExportedProgram &p : programs)
        served += p.calls;
    std::sort(served.begin(), served.end());
    served.erase(std::unique(served.begin(), served.end()), served.end());
    return served;
}

QString PhasedExportOutcome::summary() const
{
    if (cancelled)
        return QStringLiteral("export cancelled");
    if (programs.isEmpty())
        return QStringLiteral("no program was exported that serves a captured call");
    if (!unserved.isEmpty())
        return QStringLiteral("calls %1 (%2 of %3) are served by no exported program")
            .arg(ExportPhases::callsText(unserved))
            .arg(unserved.size())
            .arg(callCount);
    if (programs.size() == 1)
        return QStringLiteral("every captured call (%1) replays through the program").arg(callCount);
    return QStringLiteral("every captured call (%1) replays through its %2 programs").arg(callCount).arg(programs.size());
}

QString PhasedExportOutcome::tracesText() const
{
    const QString counted = QStringLiteral("%1 torch.export call%2 for %3 program%4")
                                .arg(traces)
                                .arg(traces == 1 ? QString() : QStringLiteral("s"))
                                .arg(programs.size())
                                .arg(programs.size() == 1 ? QString() : QStringLiteral("s"));
    if (failedTraces.isEmpty())
        return counted + QStringLiteral(", none failed");
    return counted + QStringLiteral("; failed: ") + failedTraces.join(QStringLiteral("; "));
}

} // namespace dimscope
