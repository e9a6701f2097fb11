// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/phasedexportoutcome.h"

#include "export/exportphases.h"

#include <QFileInfo>

#include <algorithm>

namespace dimscope {

QString ExportedProgram::callsText() const
{
    if (!synthesized.isEmpty())
        return QStringLiteral("none recorded (%1)").arg(synthesized);
    return ExportPhases::callsText(calls);
}

QVector<int> PhasedExportOutcome::servedCalls() const
{
    QVector<int> served;
    for (const ExportedProgram &p : programs)
        served += p.calls;
    std::sort(served.begin(), served.end());
    served.erase(std::unique(served.begin(), served.end()), served.end());
    return served;
}

QVector<int> PhasedExportOutcome::rebuiltDiffer() const
{
    QVector<int> calls;
    for (const ExportResult &round : rounds) {
        for (const CallVerification &v : round.verification) {
            if (v.status == QLatin1String("rebuilt_differs") && !calls.contains(v.call))
                calls << v.call;
        }
    }
    std::sort(calls.begin(), calls.end());
    return calls;
}

QString PhasedExportOutcome::summary() const
{
    if (cancelled)
        return QStringLiteral("export cancelled");
    if (programs.isEmpty() && writeFailure.isValid())
        return QStringLiteral("no program was written: %1").arg(writeFailure.message);
    if (programs.isEmpty())
        return QStringLiteral("no program was exported that serves a captured call");
    if (!unserved.isEmpty()) {
        QVector<int> differ;
        for (int c : rebuiltDiffer())
            if (unserved.contains(c))
                differ << c;
        const QString why = differ.isEmpty() ? QString()
            : QStringLiteral("; calls %1: the model's outputs on the rebuilt call differ from those recorded at "
                             "capture time, so no program can be verified on them (see their verification rows)")
                  .arg(ExportPhases::callsText(differ));
        QStringList lost = leftOut;
        if (writeFailure.isValid())
            lost << QStringLiteral("the archive was not written: %1").arg(writeFailure.message);
        const QString dropped = lost.isEmpty() ? QString()
            : QStringLiteral("; failed the fresh-process check, so left out of the archive: ") + lost.join(QStringLiteral("; "));
        return QStringLiteral("calls %1 (%2 of %3) are served by no exported program%4%5")
            .arg(ExportPhases::callsText(unserved))
            .arg(unserved.size())
            .arg(callCount)
            .arg(why, dropped);
    }
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

QString PhasedExportOutcome::programText(const QVector<ExportedProgram> &programs, int i, bool fileName)
{
    const ExportResult &r = programs.at(i).result;
    const QString file = fileName ? QFileInfo(r.output).fileName() : r.output;
    const bool shared = std::any_of(programs.cbegin(), programs.cend(), [&r](const ExportedProgram &p) {
        return &p.result != &r && p.result.output == r.output;
    });
    return shared ? QStringLiteral("%1, program %2").arg(file, r.program) : file;
}

} // namespace dimscope
