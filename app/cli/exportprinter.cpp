// SPDX-License-Identifier: GPL-3.0-or-later
#include "exportprinter.h"

#include "exportreadback.h"
#include "interruptwatcher.h"

#include "export/exportclient.h"
#include "export/exportphases.h"
#include "export/exportrun.h"
#include "pt2/torchrangetext.h"
#include "constraints/constraintsetjson.h"
#include "util/atomicfile.h"
#include "util/terminaltext.h"
#include "workerlines.h"

#include <QJsonDocument>
#include <QTextStream>

using namespace dimscope;

ExportPrinter::ExportPrinter(QTextStream &out, QTextStream &err, bool fixLoop, bool explain)
    : m_out(out), m_err(err), m_fixLoop(fixLoop), m_explain(explain)
{
}

QString ExportPrinter::dimsText(const ConstraintSet &set)
{
    QStringList dims;
    for (const DimDecl &d : set.dims()) {
        if (d.isDerived())
            dims << QStringLiteral("%1 = %2").arg(d.name, d.relationText());
        else
            dims << QStringLiteral("%1 [%2, %3]").arg(d.name, d.min ? QString::number(*d.min) : QStringLiteral("-"),
                                                    TorchRangeText::upper(d.max));
    }
    return dims.isEmpty() ? QStringLiteral("(no named Dims)") : dims.join(QStringLiteral(", "));
}

// Compiler-style lines (FILE:LINE: kind: expression, then the code), so that terminals
// and editors link them; `indent` before each. The file name, the code and the
// expression come from the model's files: each escaped, so none makes a line of its own.
void ExportPrinter::printExplanations(QTextStream &s, const QVector<ShapeExplanation> &all, const QString &indent)
{
    for (ShapeExplanation e : all) {
        e.kind = TerminalText::escaped(e.kind);
        e.expression = TerminalText::escaped(e.expression);
        e.location.file = TerminalText::escaped(e.location.file);
        e.location.code = TerminalText::escaped(e.location.code);
        s << indent << QString(e.toText()).replace(QLatin1String("\n"), QLatin1String("\n") + indent) << "\n";
    }
}

void ExportPrinter::printRound(const ExportResult &r)
{
    if (!r.verification.isEmpty())
        m_out << "\nverification (* = example call):\n" << r.verificationTable();
    if (!r.batchSliceText().isEmpty())
        m_out << r.batchSliceText() << "\n";
    if (r.ok)
        return;
    m_err << "\nexport failed: " << r.failure.toText();
    if (!r.explanations.isEmpty()) {
        m_err << "\nwhy: torch's shape decisions and the model lines that caused them:\n";
        printExplanations(m_err, r.explanations, QStringLiteral("  "));
    }
    if (!m_fixLoop && r.failure.hasFixes())
        m_err << "(--fix-loop applies the suggested fixes and exports again)\n";
}

void ExportPrinter::follow(ExportClient &client)
{
    m_out << "worker: " << client.runtime().commandLine() << " (" << client.runtime().sourceName() << ")\n";
    // Which dimscope Python package the worker imports: the installed one or the source tree's.
    m_out << "worker package: " << client.runtime().packageDir() << "\n";
    WorkerLines::follow(client, m_out, m_err, WorkerLines::Log::AllButBlankStderr);
}

void ExportPrinter::follow(ExportRun &run, const InterruptWatcher &interrupts)
{
    QObject::connect(&run, &ExportRun::roundFinished, &run, [this, &interrupts](int, int, const ExportResult &r) {
        if (interrupts.caughtSignal() != 0)
            return;
        printRound(r);
        m_err.flush();
    });
    if (!m_fixLoop)
        return;
    QObject::connect(&run, &ExportRun::attemptStarted,
                     &run, [this](int attempt, const QVector<int> &calls, const QString &description, const ConstraintSet &set) {
                         // empty: the one program for every call, or the continuation's synthesized calls
                         if (!calls.isEmpty())
                             m_out << "\n== phase " << attempt << ": calls " << ExportPhases::callsText(calls) << " ("
                                   << description << ") ==\n  dims: " << dimsText(set) << "\n";
                         else if (description != QLatin1String("every call"))
                             m_out << "\n== phase " << attempt << ": " << description << " ==\n  dims: " << dimsText(set) << "\n";
                     });
    QObject::connect(&run, &ExportRun::attemptSkipped,
                     &run, [this](int, const QVector<int> &, const QString &why) { m_err << "phase skipped: " << why << "\n"; });
    QObject::connect(&run, &ExportRun::roundStarted, &run, [this](int, int round) {
        m_out << "\n== fix loop round " << round << " ==\n";
        m_out.flush();
    });
    QObject::connect(&run, &ExportRun::fixesApplied,
                     &run, [this](int, int, const QVector<AppliedFix> &applied, const QStringList &unapplied,
                            const ConstraintSet &set, bool changed) {
                         for (const AppliedFix &fix : applied) {
                             m_out << "applied: " << TerminalText::escaped(fix.line) << "\n";
                             if (!fix.causes.isEmpty()) { // what the model did to make torch suggest it
                                 m_out << "  because:\n";
                                 printExplanations(m_out, fix.causes, QStringLiteral("    "));
                             }
                         }
                         for (const QString &line : unapplied)
                             m_out << "not applied: " << TerminalText::escaped(line) << "\n";
                         if (changed)
                             m_out << "constraints now: " << dimsText(set) << "\n";
                     });
    QObject::connect(&run, &ExportRun::draftExportStarted, &run, [this](int, int, const QString &why) {
        m_out << "draft export: " << TerminalText::escaped(why) << "\n"; // quotes the model's file name
    });
    QObject::connect(&run, &ExportRun::attemptFinished,
                     &run, [this](int, bool, const QString &why) {
                         // why may quote the worker's message (a save failure's cause): escaped.
                         m_out << "\nfix loop: " << TerminalText::escaped(why) << "\n";
                     });
}

// After a success: every explanation with --explain; without it, the specializations
// when a dim the constraints made dynamic came out static (why it did).
void ExportPrinter::printSuccessExplanations(const ExportResult &r, bool cameOutStatic)
{
    // What a draft export assumed is part of what the program serves: always shown.
    QVector<ShapeExplanation> assumptions;
    for (const ShapeExplanation &e : r.explanations)
        if (e.kind == QLatin1String("assumption"))
            assumptions.append(e);
    if ((r.draftExport || !assumptions.isEmpty()) && !m_explain) {
        m_out << (r.draftExport ? "\nassumptions (torch.export.draft_export decided data-dependent code as the example "
                                  "call did; the program rejects a call that decides it otherwise)"
                                : "\nassumptions (the program is keyed to the value of inputs every recorded call "
                                  "passes alike; it rejects a call with another value)")
              << (assumptions.isEmpty() ? ": none\n" : ":\n");
        printExplanations(m_out, assumptions, QStringLiteral("  "));
    }
    if (m_explain) {
        m_out << "\nexplain: torch's shape decisions on the dynamic dims and the model lines behind them"
              << (r.explanations.isEmpty() ? ": none\n" : ":\n");
        printExplanations(m_out, r.explanations, QStringLiteral("  "));
        return;
    }
    QVector<ShapeExplanation> specialized;
    for (const ShapeExplanation &e : r.explanations)
        if (e.kind == QLatin1String("specialized"))
            specialized.append(e);
    if (cameOutStatic && !specialized.isEmpty()) {
        m_out << "\nwhy static: the model lines where torch specialized a Dim:\n";
        printExplanations(m_out, specialized, QStringLiteral("  "));
    }
}

int ExportPrinter::finish(const ExportReport &report, const QString &json)
{
    const int code = m_fixLoop ? finishPhases(report) : finishSingle(report);
    return writeJson(report, json) ? code : 1;
}

// One export: the program read back once every call replays through it.
int ExportPrinter::finishSingle(const ExportReport &report)
{
    const ExportResult last = report.lastResult();
    // The program was exported and verified, but the archive's one write failed
    // (save_failed, fresh_process): said like a failed round.
    if (last.ok && report.outcome.writeFailure.isValid())
        m_err << "\nexport failed: " << report.outcome.writeFailure.toText();
    if (!last.ok || report.readBacks.isEmpty())
        return 1;
    m_out << "\nexported " << last.output << " (" << last.device << (last.strict ? ", strict" : ", non-strict")
          << ", example call " << last.exampleCall << "; model " << (last.modelReused ? "reused" : "loaded") << ")\n";
    const ProgramReadBack &back = report.readBacks.first();
    if (!back.intentError.isEmpty())
        m_err << "note: the spec does not match call " << last.exampleCall << " everywhere (" << back.intentError
              << "); the check below covers the leaves matched\n";
    const int specialized = printExportReadBack(m_out, m_err, last.output, back);
    printSuccessExplanations(last, specialized > 0);
    if (specialized > 0)
        m_err << "export failed the constraints' intent: the .pt2 was written, but it does not accept other sizes "
                 "for those dims (see the violations torch would raise with named Dims, or check the model)\n";
    printProbes(report, {last});
    printHeldOut(report);
    return report.ok() ? 0 : 1;
}

// --fix-loop: each program read back, then the list of programs with the calls each
// serves. Exit 1 when a call is served by none.
int ExportPrinter::finishPhases(const ExportReport &report)
{
    const PhasedExportOutcome &outcome = report.outcome;
    for (int i = 0; i < outcome.programs.size(); ++i) {
        const ExportedProgram &p = outcome.programs.at(i);
        const ExportResult &r = p.result;
        if (!p.appliedFixes.isEmpty()) // what the user should keep: the constraints that exported
            m_out << "\nconstraints that exported" << (outcome.programs.size() > 1 ? QStringLiteral(" ") + outcome.programText(i) : QString())
                  << " (dimscope.constraints):\n"
                  << ConstraintSetJson::write(p.constraints);
        m_out << "\nexported " << outcome.programText(i) << " (" << r.device << (r.strict ? ", strict" : ", non-strict")
              << ", example call " << r.exampleCall << (p.synthesized.isEmpty() ? "" : " of its synthesized calls")
              << ") serving calls " << p.callsText() << "\n";
        if (!p.constraintsSource.isEmpty()) // what the plan chose for it, and why (issue 27 item 1)
            m_out << "  constraints: " << TerminalText::escaped(p.constraintsSource) << "\n";
        if (!p.withoutInputs.isEmpty()) // value_if_missing's stand-ins, never fed to the model here (issue 20)
            m_out << "  without " << TerminalText::escaped(p.withoutInputs.join(QStringLiteral(", ")))
                  << ": none of its calls passed it (recorded from value_if_missing); exported and replayed without it\n";
        // Calls outside a narrowed range are served only if another program takes them
        // (issue 24 item 2): a warning, the exit code stays as it is.
        for (const QString &line : p.narrowed)
            m_err << "  warning: " << outcome.programText(i) << " is narrower than its constraints asked: "
                  << TerminalText::escaped(line) << "\n";
        for (const QString &line : p.unvaried)
            m_err << "  warning: " << outcome.programText(i) << " takes a size only as recorded: "
                  << TerminalText::escaped(line) << "\n";
        const int specialized = printExportReadBack(m_out, m_err, outcome.programText(i), report.readBacks.value(i));
        printSuccessExplanations(r, specialized > 0);
    }
    m_out << "\nprograms (" << outcome.programs.size() << "):\n";
    for (int i = 0; i < outcome.programs.size(); ++i)
        m_out << "  " << outcome.programText(i) << "  calls " << outcome.programs.at(i).callsText() << "  ("
              << outcome.programs.at(i).description << ")\n";
    // Both quote the worker's words (a failed round's kind, a left-out program's
    // fresh-process error): one line each, escaped.
    m_out << TerminalText::escaped(outcome.tracesText()) << "\n";
    printProbes(report, {});
    printHeldOut(report);
    if (!outcome.servesEveryCall()) {
        m_err << TerminalText::escaped(outcome.summary()) << "\n";
        return 1;
    }
    m_out << TerminalText::escaped(outcome.summary()) << "\n";
    if (report.specializedCount() > 0)
        m_err << "export failed the constraints' intent: a dim the constraints made dynamic came out static (see above)\n";
    return report.ok() ? 0 : 1;
}

// --probe: one line per Dim of each program, "probes, program model: seq_len (declared
// 1..oo): 2..20 served; 1 rejected (...)"; a Dim with a rejected or wrong probe on stderr.
// `single`: the one result of an export without phases. The lines quote torch: escaped.
void ExportPrinter::printProbes(const ExportReport &report, const QVector<ExportResult> &single)
{
    const PhasedExportOutcome &outcome = report.outcome;
    const int n = single.isEmpty() ? int(outcome.programs.size()) : 1;
    for (int i = 0; i < n; ++i) {
        const ExportResult &r = single.isEmpty() ? outcome.programs.at(i).result : single.first();
        const QString head = single.isEmpty() && n > 1 ? QStringLiteral("probes, %1: ").arg(outcome.programText(i))
                                                       : QStringLiteral("probes: ");
        if (r.probes.present && !r.probes.skipped.isEmpty()) {
            m_out << head << TerminalText::escaped(r.probes.skipped) << "\n";
            continue;
        }
        const QStringList lines = r.probes.summaryLines();
        for (int d = 0; d < lines.size(); ++d) {
            const ProbedDim &dim = r.probes.dims.at(d);
            const bool loud = !dim.rejected.isEmpty() || !dim.wrong.isEmpty();
            (loud ? m_err : m_out) << head << TerminalText::escaped(lines.at(d)) << "\n";
        }
    }
}

// --verify-with: one line per group of held-out calls; a call served WRONG is loud (and
// the report is not ok: exit 1). The lines quote file names and torch's words: escaped.
void ExportPrinter::printHeldOut(const ExportReport &report)
{
    const HeldOutReplay &heldOut = report.outcome.heldOut;
    for (const QString &line : heldOut.summaryLines())
        (heldOut.replayed() ? m_out : m_err) << TerminalText::escaped(line) << "\n";
    const QStringList wrong = heldOut.wrongLines();
    for (const QString &line : wrong)
        m_err << TerminalText::escaped(line) << "\n";
    if (!wrong.isEmpty())
        m_err << "export failed: " << wrong.size() << " held-out call(s) served WRONG: a program accepted them and "
                 "gave other outputs than the eager model\n";
}

int ExportPrinter::interrupted(const InterruptWatcher &interrupts)
{
    m_err << "dimscope-cli export: interrupted by " << InterruptWatcher::signalName(interrupts.caughtSignal())
          << ": the export worker was stopped, the export did not finish\n";
    return interrupts.exitCode();
}

bool ExportPrinter::writeJson(const ExportReport &report, const QString &path)
{
    if (path.isEmpty())
        return true;
    QString why;
    if (AtomicFile::write(path, QJsonDocument(report.toJson()).toJson(QJsonDocument::Indented), &why))
        return true;
    m_err << "dimscope-cli export: cannot write " << path << ": " << why << "\n";
    return false;
}
