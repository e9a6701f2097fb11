// SPDX-License-Identifier: GPL-3.0-or-later
#include "text/unservedadvice.h"

#include "export/exportphases.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QRegularExpression>

namespace dimscope {

namespace {

QString tr(const char *text) { return QCoreApplication::translate("UnservedAdvice", text); }

// The leaf dims a guard names in leaf-dim form ("input_ids dim 1 == 1",
// "past_key_values.key_cache[0] dim 2 <= 7"), each as the Dim the program was exported
// with there.
QStringList dimsOfGuard(const QString &guard, const ConstraintSet &constraints)
{
    static const QRegularExpression leafDim(QStringLiteral("(\\S+) dim (\\d+)"));
    QStringList dims;
    for (auto it = leafDim.globalMatch(guard); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        const DimAssignment a = constraints.assignment(m.captured(1), m.captured(2).toInt());
        if (a.isNamed() && !dims.contains(a.dim))
            dims << a.dim;
    }
    return dims;
}

} // namespace

QString UnservedAdvice::rejectionReason(const CallVerification &row)
{
    if (!row.guard.isEmpty())
        return tr("needs %1 (a guard torch put in the program)").arg(row.guard);
    // torch's words for a call whose inputs are not the program's (an image only the
    // prefill passes, a cache only decode calls carry).
    static const QRegularExpression structure(QStringLiteral("keyword mismatch|tree spec|pytree|number of inputs"),
                                              QRegularExpression::CaseInsensitiveOption);
    if (structure.match(row.message).hasMatch())
        return tr("takes other inputs than this call passes (the call belongs to another phase)");
    if (row.status == QLatin1String("rejected"))
        return tr("rejects it: %1").arg(row.note());
    return row.note();
}

QString UnservedAdvice::programName(const PhasedExportOutcome &outcome, int program)
{
    const ExportResult &r = outcome.programs.at(program).result;
    const QString file = QFileInfo(r.output).fileName();
    // programText names a program in an archive of several by file and name
    return outcome.programText(program, true) == file ? file : tr("program %1 of %2").arg(r.program, file);
}

UnservedAdvice UnservedAdvice::make(const PhasedExportOutcome &outcome, bool fixLoop)
{
    UnservedAdvice advice;
    advice.calls = outcome.unserved;
    if (outcome.cancelled || outcome.programs.isEmpty() || outcome.unserved.isEmpty())
        return {};
    advice.exportPhases = !fixLoop;
    for (int call : outcome.unserved) {
        QStringList why;
        for (int p = 0; p < outcome.programs.size(); ++p) {
            const ExportedProgram &program = outcome.programs.at(p);
            for (const CallVerification &row : program.result.verification) {
                if (row.call != call || row.ok())
                    continue;
                why << QStringLiteral("%1 %2").arg(programName(outcome, p), rejectionReason(row));
                for (const QString &dim : dimsOfGuard(row.guard, program.constraints))
                    if (!advice.dimsToWiden.contains(dim))
                        advice.dimsToWiden << dim;
            }
        }
        advice.reasons << QStringLiteral("call %1: %2").arg(call).arg(
            why.isEmpty() ? tr("no program was exported for its phase") : why.join(QStringLiteral("; ")));
    }
    return advice;
}

QString UnservedAdvice::text() const
{
    if (isEmpty())
        return {};
    QStringList lines;
    lines << tr("Calls %1 are served by no program:").arg(ExportPhases::callsText(calls));
    for (const QString &reason : reasons)
        lines << QStringLiteral("  • ") + reason;
    QStringList remedies;
    if (exportPhases)
        remedies << tr("export a program for their phase (Export a Program per Phase turns on Export Options' fix loop "
                       "and exports again)");
    else
        remedies << tr("the program for their phase could not be exported: see the Export log for its failure");
    if (!dimsToWiden.isEmpty())
        remedies << tr("widen %1 in the Dims panel (its range or relation rejects them) and export again")
                        .arg(dimsToWiden.join(QStringLiteral(", ")));
    lines << tr("What to do: %1.").arg(remedies.join(tr("; or ")));
    return lines.join(QLatin1Char('\n'));
}

} // namespace dimscope
