// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/exportreport.h"

#include <QJsonArray>

namespace dimscope {

namespace {

QJsonArray explanationsJson(const QVector<ShapeExplanation> &all)
{
    QJsonArray out;
    for (const ShapeExplanation &e : all)
        out.append(e.toJson());
    return out;
}

// What a report says of a failure: its kind, message, torch's fixes and, where the
// worker named one, the model's line (the worker's whole error stays in WorkerFailure::json).
QJsonValue failureJson(const ExportResult &r)
{
    if (r.ok)
        return QJsonValue();
    if (!r.failure.isValid())
        return QJsonObject();
    QJsonObject failure{{QStringLiteral("kind"), r.failure.kind}, {QStringLiteral("message"), r.failure.message},
                        {QStringLiteral("fixes"), QJsonArray::fromStringList(r.failure.fixes)}};
    if (r.failure.source.isValid())
        failure.insert(QStringLiteral("source"), r.failure.source.toJson());
    return failure;
}

QJsonObject roundJson(const ExportRound &r)
{
    QJsonArray applied;
    for (const AppliedFix &fix : r.applied)
        applied.append(QJsonObject{{QStringLiteral("fix"), fix.line},
                                   {QStringLiteral("explanations"), explanationsJson(fix.causes)}});
    return QJsonObject{{QStringLiteral("attempt"), r.attempt},
                       {QStringLiteral("round"), r.round},
                       {QStringLiteral("ok"), r.result.ok},
                       {QStringLiteral("explanations"), explanationsJson(r.result.explanations)},
                       {QStringLiteral("applied"), applied},
                       {QStringLiteral("not_applied"), QJsonArray::fromStringList(r.notApplied)},
                       {QStringLiteral("failure"), failureJson(r.result)}};
}

QJsonObject programJson(const ExportResult &r)
{
    return QJsonObject{{QStringLiteral("output"), r.output}, {QStringLiteral("program"), r.program},
                       {QStringLiteral("example_call"), r.exampleCall},
                       {QStringLiteral("device"), r.device}, {QStringLiteral("strict"), r.strict},
                       {QStringLiteral("explanations"), explanationsJson(r.explanations)},
                       // traced with torch.export.draft_export: its assumptions are in explanations
                       {QStringLiteral("draft_export"), r.draftExport},
                       // inputs the program is keyed to by value: name -> value
                       {QStringLiteral("keyed_inputs"), r.keyedInputs},
                       {QStringLiteral("keyed_static"), QJsonArray::fromStringList(r.keyedStatic)},
                       {QStringLiteral("fresh_process"), r.freshProcess.toJson()},
                       // The worker's seconds per step (docs/worker-protocol.md); bench_probes
                       // reads verify and probe from here.
                       {QStringLiteral("timings"), r.timings}};
}

} // namespace

int ExportReport::specializedCount() const
{
    int count = 0;
    for (const ProgramReadBack &back : readBacks)
        count += back.program ? back.specializedCount() : 1;
    return count;
}

bool ExportReport::ok() const
{
    return outcome.servesEveryCall() && readBacks.size() == outcome.programs.size() && specializedCount() == 0
        && outcome.heldOut.wrongCalls().isEmpty();
}

ExportResult ExportReport::lastResult() const
{
    if (!outcome.programs.isEmpty())
        return outcome.programs.last().result;
    return rounds.isEmpty() ? ExportResult() : rounds.last().result;
}

QJsonObject ExportReport::toJson() const
{
    const ExportResult last = lastResult();
    QJsonArray roundsJson, programsJson;
    for (const ExportRound &r : rounds)
        roundsJson.append(roundJson(r));
    for (const ExportedProgram &p : outcome.programs) {
        // How many torch.export calls the program took (issue 29: one when the phases
        // planned before the first trace were right) and the failed ones.
        QJsonObject program = programJson(p.result);
        program.insert(QStringLiteral("batch_slice"), p.result.batchSliceJson()); // synthesized, not a recorded call
        program.insert(QStringLiteral("probes"), p.result.probes.toJson()); // the declared ranges probed (--probe)
        program.insert(QStringLiteral("torch_export_calls"), p.traces);
        program.insert(QStringLiteral("failed_torch_export_calls"), QJsonArray::fromStringList(p.failedTraces));
        // The phase it serves and its captured calls; a synthesized program (the
        // continuation) serves none and says which calls it was verified on.
        program.insert(QStringLiteral("phase"), p.description);
        QJsonArray calls;
        for (int c : p.calls)
            calls.append(c);
        program.insert(QStringLiteral("calls"), calls);
        program.insert(QStringLiteral("synthesized"), p.synthesized.isEmpty() ? QJsonValue() : QJsonValue(p.synthesized));
        // Where its constraints came from, and what the plan changed in them (issue 27
        // item 1: "past_len from 1 (0 in calls of another phase: it grows from empty)").
        program.insert(QStringLiteral("constraints_source"), p.constraintsSource);
        // Where the fix loop left it narrower than the constraints it started from.
        program.insert(QStringLiteral("narrowed"), QJsonArray::fromStringList(p.narrowed));
        // Sizes it takes only as recorded: no recorded call varied them (UnvariedSizes).
        program.insert(QStringLiteral("unvaried"), QJsonArray::fromStringList(p.unvaried));
        program.insert(QStringLiteral("without_inputs"), QJsonArray::fromStringList(p.withoutInputs));
        programsJson.append(program);
    }
    return QJsonObject{{QStringLiteral("format"), QStringLiteral("dimscope.export")},
                       {QStringLiteral("version"), 1},
                       {QStringLiteral("ok"), ok()},
                       {QStringLiteral("failure"), failureJson(outcome.programs.isEmpty() && outcome.writeFailure.isValid()
                                                                   ? ExportResult::fromFailure(outcome.writeFailure)
                                                                   : last)},
                       {QStringLiteral("explanations"), explanationsJson(last.explanations)},
                       {QStringLiteral("programs"), programsJson},
                       {QStringLiteral("torch_export_calls"), outcome.traces},
                       {QStringLiteral("failed_torch_export_calls"), QJsonArray::fromStringList(outcome.failedTraces)},
                       // The archive's one write (docs/worker-protocol.md): the new
                       // interpreters that checked it and the programs left out of it.
                       {QStringLiteral("fresh_interpreters"), outcome.freshInterpreters},
                       {QStringLiteral("left_out_of_archive"), QJsonArray::fromStringList(outcome.leftOut)},
                       // --verify-with: the held-out calls, each served, rejected or wrong
                       {QStringLiteral("held_out"), outcome.heldOut.toJson()},
                       {QStringLiteral("rounds"), roundsJson}};
}

} // namespace dimscope
