// SPDX-License-Identifier: GPL-3.0-or-later
// ExportReport, what one ExportRun produced for both front ends: its verdict (every
// call served, every program read back, no dim the constraints made dynamic static)
// and its JSON (docs/cli.md, "export --json"), built from results as the worker sends
// them. The run itself against the worker: tst_exportservice and test_cli_export.py.
#include "export/exportreport.h"
#include "export/exportrequest.h"

#include <QJsonArray>
#include <QTest>
#include "deterministictestmain.h"

using namespace dimscope;

namespace {

ShapeExplanation specialization()
{
    return ShapeExplanation::fromJson(QJsonObject{
        {QStringLiteral("kind"), QStringLiteral("specialized")},
        {QStringLiteral("expression"), QStringLiteral("seq_len == 4")},
        {QStringLiteral("torch_expression"), QStringLiteral("Eq(s1, 4)")},
        {QStringLiteral("dims"), QJsonArray{QStringLiteral("seq_len")}},
        {QStringLiteral("value"), 4},
        {QStringLiteral("sources"), QJsonArray{QJsonObject{{QStringLiteral("source"), QStringLiteral("L['x'].size()[1]")},
                                                            {QStringLiteral("path"), QStringLiteral("x")},
                                                            {QStringLiteral("dim"), 1}}}},
        {QStringLiteral("location"), QJsonObject{{QStringLiteral("file"), QStringLiteral("/m.py")},
                                                 {QStringLiteral("line"), 6},
                                                 {QStringLiteral("function"), QStringLiteral("forward")},
                                                 {QStringLiteral("code"), QStringLiteral("if h.shape[1] == 4:")}}},
        {QStringLiteral("stack"), QJsonArray{}}});
}

ExportResult failedWithFix()
{
    WorkerFailure f = WorkerFailure::make(QStringLiteral("constraint_violation"), QStringLiteral("Constraints violated"));
    f.fixes = {QStringLiteral("seq_len = 4")};
    ExportResult r = ExportResult::fromFailure(f);
    r.explanations = {specialization()};
    return r;
}

ExportResult exported(int calls)
{
    ExportResult r;
    r.ok = r.exported = true;
    r.output = QStringLiteral("/out/m.pt2");
    r.exampleCall = 0;
    r.device = QStringLiteral("cpu");
    for (int c = 0; c < calls; ++c)
    {
        CallVerification v;
        v.call = c;
        v.status = QStringLiteral("ok");
        r.verification.append(v);
    }
    return r;
}

// A fix loop that exported in round 2 after applying torch's fix, its program read back.
ExportReport fixedInTwoRounds()
{
    ExportReport report;
    report.rounds = {ExportRound{1, 1, failedWithFix(), {AppliedFix{QStringLiteral("seq_len = 4"), {specialization()}}}, {}},
                     ExportRound{1, 2, exported(2), {}, {}}};
    report.outcome.callCount = 2;
    ExportedProgram program;
    program.result = exported(2);
    program.calls = {0, 1};
    report.outcome.programs = {program};
    ProgramReadBack back;
    back.program = Pt2Program();
    back.mapping = Pt2DimMapping();
    report.readBacks = {back};
    return report;
}

} // namespace

class TestExportReport : public QObject
{
    Q_OBJECT
private slots:
    void failedExportReportsItsFailure();
    void aFailureInTheModelsCodeNamesItsLine();
    void fixLoopReportsEachFixWithItsCause();
    void specializedDimOrUnreadProgramIsNoSuccess();
    void explanationJsonReadsBackAsItWasWritten();
    void programNamesTheRegistrationsForAPlainLoad();
    void programCarriesItsBatchSlice();
    void programsGiveTheirPhaseAndTheContinuationItsSynthesizedCalls();
    void callsWhoseRebuiltCallDiffersAreUnservedWithWhy();
    void heldOutCallsAreReportedAndAWrongOneFailsTheExport();
    void programGivesTheWorkersTimingsAndTheProbeCapReachesTheWorker();
};

// The worker's result as docs/worker-protocol.md shows it: the registrations a user runs
// before a plain torch.export.load reach the --json report with the program.
void TestExportReport::programNamesTheRegistrationsForAPlainLoad()
{
    const QJsonArray lines{QStringLiteral("import dimscope.demo"),
                           QStringLiteral("from dimscope.caches import register_key_value_cache"),
                           QStringLiteral("register_key_value_cache(dimscope.demo.DemoCache)")};
    const QJsonObject result{
        {QStringLiteral("output"), QStringLiteral("/out/m.pt2")},
        {QStringLiteral("example_call"), 0},
        {QStringLiteral("device"), QStringLiteral("cpu")},
        {QStringLiteral("fresh_process"),
         QJsonObject{{QStringLiteral("status"), QStringLiteral("ok")},
                     {QStringLiteral("call"), 0},
                     {QStringLiteral("plain_load"), QJsonObject{{QStringLiteral("status"), QStringLiteral("ok")},
                                                                 {QStringLiteral("message"), QJsonValue::Null},
                                                                 {QStringLiteral("registrations"), lines}}}}}};
    ExportReport report;
    report.outcome.callCount = 1;
    ExportedProgram program;
    program.result = ExportResult::fromResult(result);
    program.calls = {0};
    report.outcome.programs = {program};

    const QJsonObject written =
        report.toJson().value(QLatin1String("programs")).toArray().first().toObject().value(QLatin1String("fresh_process")).toObject();
    QCOMPARE(written.value(QLatin1String("status")).toString(), QStringLiteral("ok"));
    const QJsonObject plain = written.value(QLatin1String("plain_load")).toObject();
    QCOMPARE(plain.value(QLatin1String("status")).toString(), QStringLiteral("ok"));
    QVERIFY(plain.value(QLatin1String("message")).isNull());
    QCOMPARE(plain.value(QLatin1String("registrations")).toArray(), lines);

    // No check ran (verification off): null, not an empty object that reads as a pass.
    report.outcome.programs.first().result.freshProcess = FreshProcessCheck();
    QVERIFY(report.toJson().value(QLatin1String("programs")).toArray().first().toObject().value(QLatin1String("fresh_process")).isNull());
}

// Issue 27 item 3: each program's batch-1 slice, marked synthesized (not a recorded call).
// --json's programs[] (issue 27 item 2): each program's phase and captured calls; the
// continuation program serves none and says which synthesized calls it was verified on.
void TestExportReport::programsGiveTheirPhaseAndTheContinuationItsSynthesizedCalls()
{
    ExportReport report;
    report.outcome.callCount = 3;
    ExportedProgram decode, continuation;
    decode.calls = {1, 2};
    decode.description = QStringLiteral("input_ids dim 1 = 1");
    decode.constraintsSource = QStringLiteral("inferred from its calls; past_len from 1 (0 in calls of another phase: "
                                              "it grows from empty)");
    continuation.description = QStringLiteral("continuation: several new tokens on a non-empty cache");
    continuation.synthesized = QStringLiteral("verified on 3 call(s) synthesized from call 0: 2 + 6, 2 + 5, 3 + 5 "
                                              "tokens, cached + new");
    report.outcome.programs = {decode, continuation};
    const QJsonArray programs = report.toJson().value(QLatin1String("programs")).toArray();
    QCOMPARE(programs.size(), 2);
    QCOMPARE(programs.at(0).toObject().value(QLatin1String("phase")).toString(), decode.description);
    QCOMPARE(programs.at(0).toObject().value(QLatin1String("calls")).toArray(), (QJsonArray{1, 2}));
    QVERIFY(programs.at(0).toObject().value(QLatin1String("synthesized")).isNull());
    QCOMPARE(programs.at(0).toObject().value(QLatin1String("constraints_source")).toString(), decode.constraintsSource);
    QCOMPARE(programs.at(1).toObject().value(QLatin1String("phase")).toString(), continuation.description);
    QCOMPARE(programs.at(1).toObject().value(QLatin1String("calls")).toArray(), QJsonArray());
    QCOMPARE(programs.at(1).toObject().value(QLatin1String("synthesized")).toString(), continuation.synthesized);
}

void TestExportReport::programCarriesItsBatchSlice()
{
    const QJsonObject result{
        {QStringLiteral("output"), QStringLiteral("/out/m.pt2")},
        {QStringLiteral("example_call"), 3},
        {QStringLiteral("verification"),
         QJsonArray{QJsonObject{{QStringLiteral("call"), 3}, {QStringLiteral("status"), QStringLiteral("ok")}}}},
        {QStringLiteral("batch_slice"),
         QJsonObject{{QStringLiteral("call"), 3}, {QStringLiteral("dim"), QStringLiteral("batch")},
                     {QStringLiteral("status"), QStringLiteral("ok")}, {QStringLiteral("message"), QJsonValue::Null},
                     {QStringLiteral("outputs"),
                      QJsonArray{QJsonObject{{QStringLiteral("path"), QStringLiteral("output[0]")},
                                             {QStringLiteral("max_abs"), 0.0}, {QStringLiteral("max_rel"), 0.0},
                                             {QStringLiteral("ok"), true}}}}}}};
    ExportReport report;
    report.outcome.callCount = 4;
    ExportedProgram program;
    program.result = ExportResult::fromResult(result);
    program.calls = {3};
    report.outcome.programs = {program};
    const QJsonObject slice =
        report.toJson().value(QLatin1String("programs")).toArray().first().toObject().value(QLatin1String("batch_slice")).toObject();
    QCOMPARE(slice.value(QLatin1String("synthesized")).toBool(), true);
    QCOMPARE(slice.value(QLatin1String("call")).toInt(), 3);
    QCOMPARE(slice.value(QLatin1String("dim")).toString(), QStringLiteral("batch"));
    QCOMPARE(slice.value(QLatin1String("status")).toString(), QStringLiteral("ok"));
    QVERIFY(slice.value(QLatin1String("message")).isNull());
    QCOMPARE(slice.value(QLatin1String("max_abs")).toDouble(), 0.0);
    QCOMPARE(report.outcome.programs.first().calls, (QVector<int>{3})); // not among the served calls
}

// Issue 27 item 4 (a): the worker's rows for calls whose rebuilt inputs make the model
// differ from its recorded outputs (a sliding-window cache past its window). They are no
// program's calls, the summary names them with why, and the table shows the worker's words.
void TestExportReport::callsWhoseRebuiltCallDiffersAreUnservedWithWhy()
{
    auto row = [](int call, const char *status, const char *message) {
        return QJsonObject{{QStringLiteral("call"), call}, {QStringLiteral("status"), QLatin1String(status)},
                           {QStringLiteral("message"), message ? QJsonValue(QLatin1String(message)) : QJsonValue()},
                           {QStringLiteral("outputs"), QJsonArray{}}};
    };
    const char *why = "the model's outputs on the rebuilt call differ from those recorded at capture time "
                      "(max abs 0.0384, max rel 27.5 at output['logits']): its sliding-window cache layers had seen "
                      "8 tokens";
    const ExportResult result = ExportResult::fromResult(QJsonObject{
        {QStringLiteral("output"), QStringLiteral("/out/m.pt2")},
        {QStringLiteral("example_call"), 1},
        {QStringLiteral("device"), QStringLiteral("cpu")},
        {QStringLiteral("verification"), QJsonArray{row(1, "ok", nullptr), row(2, "rebuilt_differs", why),
                                                    row(3, "rebuilt_differs", why)}}});
    QVERIFY(!result.ok);
    QVERIFY(result.verificationTable().contains(QLatin1String("rebuilt_differs")));
    QVERIFY(result.verificationTable().contains(QLatin1String("max abs 0.0384, max rel 27.5 at output['logits']")));

    PhasedExportOutcome outcome;
    outcome.callCount = 4;
    outcome.rounds = {result};
    ExportedProgram program;
    program.result = result;
    program.calls = {1};
    outcome.programs = {program};
    outcome.unserved = {0, 2, 3};
    QCOMPARE(outcome.rebuiltDiffer(), (QVector<int>{2, 3}));
    QCOMPARE(outcome.summary(),
             QStringLiteral("calls 0, 2-3 (3 of 4) are served by no exported program; calls 2-3: the model's outputs "
                            "on the rebuilt call differ from those recorded at capture time, so no program can be "
                            "verified on them (see their verification rows)"));
}

// Issue 24 item 4: the worker's `held_out` (--verify-with) as the summary lines, one per
// group of calls, and --json; a call served with other outputs than the eager model's
// (WRONG) fails an export that served every recorded call.
void TestExportReport::heldOutCallsAreReportedAndAWrongOneFailsTheExport()
{
    auto rejection = [](const char *program, const char *guard) {
        return QJsonObject{{QStringLiteral("program"), QString::fromLatin1(program)}, {QStringLiteral("guard"), QString::fromLatin1(guard)},
                           {QStringLiteral("message"), QString(QStringLiteral("RuntimeError: ") + QString::fromLatin1(guard))}};
    };
    auto call = [](int index, const char *status, const char *program, QJsonArray rejections) {
        QJsonObject o{{QStringLiteral("call"), index}, {QStringLiteral("status"), QString::fromLatin1(status)},
                      {QStringLiteral("program"), program ? QJsonValue(QString::fromLatin1(program)) : QJsonValue()},
                      {QStringLiteral("max_abs"), program ? QJsonValue(0.0) : QJsonValue()},
                      {QStringLiteral("message"), QJsonValue()}, {QStringLiteral("rejections"), rejections}};
        return o;
    };
    const QJsonArray both{rejection("model", "input_ids.size()[1] <= 7"), rejection("phase2", "input_ids.size()[1] == 1")};
    QJsonArray calls{call(0, "served", "model", QJsonArray()), call(1, "served", "model", QJsonArray()),
                     call(2, "served", "phase2", QJsonArray{rejection("model", "input_ids.size()[1] <= 7")}),
                     call(3, "rejected", nullptr, both), call(5, "rejected", nullptr, both)};
    const QJsonObject worker{{QStringLiteral("file"), QStringLiteral("/data/other.safetensors")},
                             {QStringLiteral("programs"), QJsonArray{QStringLiteral("model"), QStringLiteral("phase2")}},
                             {QStringLiteral("calls"), calls}};
    ExportReport report = fixedInTwoRounds();
    report.outcome.heldOut = HeldOutReplay::fromJson(worker);
    QCOMPARE(report.outcome.heldOut.summaryLines(),
             (QStringList{QStringLiteral("held-out other.safetensors: 3 of 5 calls served (calls 0-1 by model, call 2 by phase2)"),
                          QStringLiteral("held-out other.safetensors: calls 3, 5 rejected by every program: model: "
                                         "input_ids.size()[1] <= 7; phase2: input_ids.size()[1] == 1")}));
    QVERIFY(report.outcome.heldOut.wrongLines().isEmpty());
    QVERIFY(report.ok()); // rejected held-out calls are reported, not a failure
    const QJsonObject json = report.toJson().value(QLatin1String("held_out")).toObject();
    QCOMPARE(json.value(QLatin1String("served")).toInt(), 3);
    QCOMPARE(json.value(QLatin1String("calls")).toArray().at(3).toObject().value(QLatin1String("rejections")).toArray().size(), 2);
    QCOMPARE(json.value(QLatin1String("calls")).toArray().at(2).toObject().value(QLatin1String("program")).toString(),
             QStringLiteral("phase2"));

    QJsonObject wrong = call(4, "wrong", "phase2", QJsonArray());
    wrong.insert(QStringLiteral("message"), QStringLiteral("served by program phase2 with outputs that differ from the "
                                                           "eager model's (max abs 0.02, max rel 0.5 at output[0])"));
    calls.append(wrong);
    QJsonObject withWrong = worker;
    withWrong.insert(QStringLiteral("calls"), calls);
    report.outcome.heldOut = HeldOutReplay::fromJson(withWrong);
    QVERIFY(!report.ok());
    QCOMPARE(report.outcome.heldOut.wrongLines(),
             QStringList{QStringLiteral("held-out other.safetensors: call 4 WRONG: served by program phase2 with outputs "
                                        "that differ from the eager model's (max abs 0.02, max rel 0.5 at output[0])")});
    QCOMPARE(report.toJson().value(QLatin1String("held_out")).toObject().value(QLatin1String("wrong")).toInt(), 1);
    QVERIFY(!report.toJson().value(QLatin1String("ok")).toBool());

    // Asked for but not replayed (separate files): one line saying why; no held-out: null.
    report.outcome.heldOut = HeldOutReplay{QStringLiteral("/data/other.safetensors"), QStringLiteral("no program was written"), {}, {}};
    QCOMPARE(report.outcome.heldOut.summaryLines(),
             QStringList{QStringLiteral("held-out other.safetensors: not replayed: no program was written")});
    report.outcome.heldOut = HeldOutReplay{};
    QVERIFY(report.toJson().value(QLatin1String("held_out")).isNull());
}

void TestExportReport::aFailureInTheModelsCodeNamesItsLine()
{
    ExportResult failed;
    failed.failure = WorkerFailure::make(QStringLiteral("export_failed"),
                                         QStringLiteral("PendingUnbackedSymbolNotFound: Pending unbacked symbols {u0}"));
    failed.failure.source.file = QStringLiteral("/x/transformers/models/aria/modeling_aria.py");
    failed.failure.source.line = 374;
    ExportReport report;
    report.rounds = {ExportRound{1, 1, failed, {}, {}}};
    const QJsonObject source = report.toJson().value(QLatin1String("failure")).toObject().value(QLatin1String("source")).toObject();
    QCOMPARE(source.value(QLatin1String("file")).toString(), failed.failure.source.file);
    QCOMPARE(source.value(QLatin1String("line")).toInt(), 374);
}

void TestExportReport::failedExportReportsItsFailure()
{
    ExportReport report;
    report.rounds = {ExportRound{1, 1, failedWithFix(), {}, {}}};
    report.outcome.callCount = 3;
    report.outcome.unserved = {0, 1, 2};

    const QJsonObject json = report.toJson();
    QVERIFY(!report.ok());
    QCOMPARE(json.value(QLatin1String("format")).toString(), QStringLiteral("dimscope.export"));
    QCOMPARE(json.value(QLatin1String("version")).toInt(), 1);
    QCOMPARE(json.value(QLatin1String("ok")).toBool(true), false);
    const QJsonObject failure = json.value(QLatin1String("failure")).toObject();
    QCOMPARE(failure.value(QLatin1String("kind")).toString(), QStringLiteral("constraint_violation"));
    QCOMPARE(failure.value(QLatin1String("fixes")).toArray(), QJsonArray{QStringLiteral("seq_len = 4")});
    QVERIFY(!failure.contains(QLatin1String("source"))); // the worker named no line of the model
    QCOMPARE(json.value(QLatin1String("explanations")).toArray().size(), 1);
    QCOMPARE(json.value(QLatin1String("programs")).toArray(), QJsonArray());
    const QJsonObject round = json.value(QLatin1String("rounds")).toArray().first().toObject();
    QCOMPARE(round.value(QLatin1String("ok")).toBool(true), false);
    QCOMPARE(round.value(QLatin1String("failure")).toObject().value(QLatin1String("kind")).toString(),
             QStringLiteral("constraint_violation"));
}

void TestExportReport::fixLoopReportsEachFixWithItsCause()
{
    const ExportReport report = fixedInTwoRounds();
    const QJsonObject json = report.toJson();
    QVERIFY(report.ok());
    QCOMPARE(json.value(QLatin1String("ok")).toBool(), true);
    QVERIFY(json.value(QLatin1String("failure")).isNull());
    const QJsonArray rounds = json.value(QLatin1String("rounds")).toArray();
    QCOMPARE(rounds.size(), 2);
    const QJsonObject applied = rounds.at(0).toObject().value(QLatin1String("applied")).toArray().first().toObject();
    QCOMPARE(applied.value(QLatin1String("fix")).toString(), QStringLiteral("seq_len = 4"));
    const QJsonObject cause = applied.value(QLatin1String("explanations")).toArray().first().toObject();
    QCOMPARE(cause.value(QLatin1String("location")).toObject().value(QLatin1String("line")).toInt(), 6);
    QVERIFY(rounds.at(1).toObject().value(QLatin1String("failure")).isNull());
    const QJsonObject program = json.value(QLatin1String("programs")).toArray().first().toObject();
    QCOMPARE(program.value(QLatin1String("output")).toString(), QStringLiteral("/out/m.pt2"));
    QCOMPARE(program.value(QLatin1String("example_call")).toInt(), 0);
    QCOMPARE(program.value(QLatin1String("device")).toString(), QStringLiteral("cpu"));
}

void TestExportReport::specializedDimOrUnreadProgramIsNoSuccess()
{
    ExportReport report = fixedInTwoRounds();
    Pt2DimMapping::Input input;
    Pt2DimMapping::Dim dim;
    dim.intended = QStringLiteral("seq_len");
    dim.size = SymSize::fromInt(4);
    dim.status = Pt2DimMapping::Dim::Status::Specialized;
    input.dims = {dim};
    report.readBacks.first().mapping->inputs = {input};
    QCOMPARE(report.specializedCount(), 1);
    QVERIFY(!report.ok());
    QCOMPARE(report.toJson().value(QLatin1String("ok")).toBool(true), false);

    report = fixedInTwoRounds();
    report.readBacks.first().program.reset();
    report.readBacks.first().error = QStringLiteral("/out/m.pt2: not a zip archive");
    QCOMPARE(report.specializedCount(), 1);
    QVERIFY(!report.ok());
}

void TestExportReport::explanationJsonReadsBackAsItWasWritten()
{
    const QJsonObject written = specialization().toJson();
    QCOMPARE(ShapeExplanation::fromJson(written).toJson(), written);
    QCOMPARE(written.value(QLatin1String("reason")), QJsonValue()); // none given: null
    ShapeExplanation atTheInputs = specialization();
    atTheInputs.location = {};
    QVERIFY(atTheInputs.toJson().value(QLatin1String("location")).isNull());
}

// Issue 24 item 3: the worker's seconds per step reach --json (bench_probes compares
// probe with verify there), and --probe-cap reaches the worker only when it probes.
void TestExportReport::programGivesTheWorkersTimingsAndTheProbeCapReachesTheWorker()
{
    ExportReport report;
    report.outcome.callCount = 1;
    ExportedProgram program;
    program.result = ExportResult::fromResult(QJsonObject{
        {QStringLiteral("output"), QStringLiteral("/out/m.pt2")},
        {QStringLiteral("verification"),
         QJsonArray{QJsonObject{{QStringLiteral("call"), 0}, {QStringLiteral("status"), QStringLiteral("ok")}}}},
        {QStringLiteral("timings"), QJsonObject{{QStringLiteral("verify"), 0.5}, {QStringLiteral("verify_cpu"), 0.4},
                                                {QStringLiteral("probe"), 0.75}, {QStringLiteral("probe_cpu"), 0.6}}}});
    program.calls = {0};
    report.outcome.programs = {program};
    const QJsonObject timings = report.toJson().value(QLatin1String("programs")).toArray().first().toObject()
                                    .value(QLatin1String("timings")).toObject();
    QCOMPARE(timings.value(QLatin1String("verify_cpu")).toDouble(), 0.4);
    QCOMPARE(timings.value(QLatin1String("probe_cpu")).toDouble(), 0.6);

    ExportRequest request;
    request.probeCap = 12;
    QVERIFY(!request.toParams().contains(QLatin1String("probe_cap"))); // no probing: nothing capped
    request.probe = true;
    QCOMPARE(request.toParams().value(QLatin1String("probe_cap")).toInt(), 12);
    request.probeCap = 0;
    QVERIFY(!request.toParams().contains(QLatin1String("probe_cap"))); // the worker's default cap
}

DIMSCOPE_GUILESS_TEST_MAIN(TestExportReport)
#include "tst_exportreport.moc"
