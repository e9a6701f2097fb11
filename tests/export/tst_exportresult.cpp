// SPDX-License-Identifier: GPL-3.0-or-later
// Parsing the worker's answers into ExportResult / WorkerFailure values.
#include "export/exportresult.h"

#include <QJsonArray>
#include <QJsonDocument>
#include "deterministictestmain.h"

using namespace dimscope;

static QJsonObject json(const char *text)
{
    QJsonParseError e;
    const QJsonDocument d = QJsonDocument::fromJson(QByteArray(text), &e);
    if (e.error != QJsonParseError::NoError)
        qFatal("bad fixture: %s", qPrintable(e.errorString()));
    return d.object();
}

class TestExportResult : public QObject
{
    Q_OBJECT
private slots:
    void constraintViolation()
    {
        // as the worker sends the tutorial model's failure (torch 2.6 text)
        const WorkerFailure f = WorkerFailure::fromJson(json(R"J({"kind": "constraint_violation",
            "message": "Constraints violated (d1, dy)! For more information, run with TORCH_LOGS=\u0022+dynamic\u0022.",
            "traceback": "tb", "raw": "Constraints violated (d1, dy)! For more information, run with TORCH_LOGS=\u0022+dynamic\u0022.",
            "names": ["d1", "dy"],
            "violations": [{"text": "The values of dy = L['args'][1]['y'].size()[0] and dx = L['args'][1]['x'].size()[0] must always be equal.",
                            "kind": "equal", "dims": ["dx", "dy"],
                            "sources": [{"source": "L['args'][1]['y'].size()[0]", "path": "y", "dim": 0, "dim_name": "dy"},
                                        {"source": "L['args'][1]['x'].size()[0]", "path": "x", "dim": 0}]}],
            "fixes": ["d1 = 4", "dy = dx"]})J"));
        QCOMPARE(f.kind, QStringLiteral("constraint_violation"));
        // torch's TORCH_LOGS advice is not repeated (dimscope shows why itself); raw keeps it
        QCOMPARE(f.message, QStringLiteral("Constraints violated (d1, dy)!"));
        QVERIFY(f.raw.contains(QLatin1String("TORCH_LOGS")));
        QCOMPARE(f.fixes, (QStringList{QStringLiteral("d1 = 4"), QStringLiteral("dy = dx")}));
        QCOMPARE(f.names, (QStringList{QStringLiteral("d1"), QStringLiteral("dy")}));
        QCOMPARE(f.violations.size(), 1);
        QCOMPARE(f.violations[0].kind, QStringLiteral("equal"));
        QCOMPARE(f.violations[0].sources[0].path, QStringLiteral("y"));
        QCOMPARE(f.violations[0].sources[0].dim, 0);
        // the leaf dim as the GUI names it: key path, dim, and the spec's Dim when known
        QCOMPARE(f.violations[0].sources[0].toText(), QStringLiteral("y dim 0 (dy)"));
        QCOMPARE(f.violations[0].sources[1].toText(), QStringLiteral("x dim 0"));
        const QString text = f.toText();
        // each violation's leaf dims under its line, named as in the GUI
        QCOMPARE(f.violations[0].leafDimsText(), QStringLiteral("y dim 0 (dy), x dim 0"));
        QVERIFY2(text.contains(QLatin1String("must always be equal.\n    leaf dims: y dim 0 (dy), x dim 0\n")), qPrintable(text));
        QVERIFY(text.contains(QLatin1String("suggested fixes:\n  d1 = 4\n  dy = dx\n")));
        QVERIFY(!text.contains(QLatin1String("tb"))); // torch's traceback is noise here
    }

    void dataDependentSource()
    {
        const WorkerFailure f = WorkerFailure::fromJson(json(R"J({"kind": "data_dependent", "message": "Could not guard",
            "expression": "Eq(u0, 1)", "source": {"file": "/m.py", "line": 7, "function": "forward", "code": "if x.sum() > 0:"},
            "hint": "torch._check"})J"));
        QCOMPARE(f.source.line, 7);
        QVERIFY(f.toText().contains(QLatin1String("at /m.py:7 in forward: if x.sum() > 0:")));
    }

    void successAndVerificationTable()
    {
        const ExportResult r = ExportResult::fromResult(json(R"J({"output": "/o.pt2", "example_call": 1, "device": "cpu",
            "strict": false, "model_reused": true, "capture_reused": false,
            "range_constraints": {"s0": [2, 64], "s1": [2, null]},
            "inputs": [{"name": "x", "shape": ["s0", 4]}],
            "verification": [
              {"call": 0, "status": "ok", "message": null, "outputs": [{"path": "output", "max_abs": 1e-7, "max_rel": 2e-6, "ok": true}]},
              {"call": 1, "status": "ok", "message": null, "outputs": [{"path": "output", "max_abs": 0.0, "max_rel": 0.0, "ok": true}]}],
            "timings": {"export": 0.5}})J"));
        QVERIFY(r.ok && r.exported && r.modelReused && !r.captureReused);
        QCOMPARE(r.ranges.size(), 2);
        QCOMPARE(*r.ranges[0].max, qint64(64));
        QVERIFY(!r.ranges[1].max.has_value());
        QCOMPARE(r.inputs[0].shape, (QStringList{QStringLiteral("s0"), QStringLiteral("4")}));
        const QString table = r.verificationTable();
        QVERIFY2(table.contains(QLatin1String("1*")), qPrintable(table)); // the example call is marked
        QCOMPARE(table.count(QLatin1Char('\n')), 3);
    }

    void verificationFailureKeepsTheResult()
    {
        const WorkerFailure f = WorkerFailure::fromJson(json(R"J({"kind": "verification_failed", "message": "1 of 2 fail",
            "result": {"output": "/o.pt2", "example_call": 0, "verification": [
              {"call": 0, "status": "ok", "outputs": []},
              {"call": 1, "status": "rejected", "message": "Expected input at 'x'.shape[1] to be equal to 4, but got 5", "outputs": []}]}})J"));
        const ExportResult r = ExportResult::fromFailure(f);
        QVERIFY(!r.ok);
        QVERIFY(r.exported);
        QCOMPARE(r.verification.size(), 2);
        QVERIFY(!r.verification[1].ok());
        QVERIFY(r.verificationTable().contains(QLatin1String("rejected")));
        QCOMPARE(r.failure.kind, QStringLiteral("verification_failed"));
        // torch 2.14's guards: the worker's parsed guard is the table's note.
        const ExportResult guarded = ExportResult::fromFailure(WorkerFailure::fromJson(json(R"J({"kind": "verification_failed",
            "message": "1 of 1 fail", "result": {"output": "/o.pt2", "example_call": 0, "verification": [
              {"call": 3, "status": "rejected", "message": "AssertionError: Guard failed: input_ids.size()[1] == 1",
               "guard": {"expression": "input_ids.size()[1] == 1", "text": "input_ids dim 1 == 1",
                         "sources": [{"source": "input_ids.size()[1]", "path": "input_ids", "dim": 1}]},
               "outputs": []}]}})J")));
        QCOMPARE(guarded.verification[0].note(), QStringLiteral("guard failed: input_ids dim 1 == 1"));
        QVERIFY(guarded.verificationTable().contains(QLatin1String("guard failed: input_ids dim 1 == 1")));
        const ExportResult crash = ExportResult::fromFailure(WorkerFailure::make(QStringLiteral("worker_crashed"), QStringLiteral("boom")));
        QVERIFY(!crash.exported && !crash.ok);
    }

    void batchSliceIsReportedApartFromTheRecordedCalls()
    {
        // issue 27 item 3: the worker's batch-1 slice of the example call
        const ExportResult r = ExportResult::fromResult(json(R"J({"output": "/o.pt2", "example_call": 4,
            "range_constraints": {"s0": [1, null]},
            "verification": [{"call": 4, "status": "ok", "message": null, "outputs": []}],
            "batch_slice": {"call": 4, "dim": "batch", "status": "mismatch", "message": "outputs differ",
                            "outputs": [{"path": "output[0]", "max_abs": 0.5, "max_rel": 0.2, "ok": false}]}})J"));
        QVERIFY(r.ok); // the slice is not a recorded call: the export's verdict is the recorded calls'
        QCOMPARE(r.verification.size(), 1);
        QCOMPARE(r.batchSlice.status, QStringLiteral("mismatch"));
        QCOMPARE(r.batchSliceText(), QStringLiteral("batch-1 slice of call 4 (row 0 of every input batched on batch; "
                                                    "synthesized, not a recorded call): mismatch, max abs 0.5: outputs differ"));
        QVERIFY(!r.verificationTable().contains(QLatin1String("slice")));
        const QJsonObject j = r.batchSliceJson().toObject();
        QCOMPARE(j.value(QLatin1String("synthesized")).toBool(), true);
        QCOMPARE(j.value(QLatin1String("dim")).toString(), QStringLiteral("batch"));
        QCOMPARE(j.value(QLatin1String("status")).toString(), QStringLiteral("mismatch"));
        QCOMPARE(j.value(QLatin1String("max_abs")).toDouble(), 0.5);
        // skipped: the worker's reason; an older worker's result: nothing
        const ExportResult skipped = ExportResult::fromResult(json(R"J({"output": "/o.pt2", "verification": [],
            "batch_slice": {"call": 0, "dim": null, "status": "skipped", "message": "no batch Dim: nothing\u001b is sliced",
                            "outputs": []}})J"));
        QCOMPARE(skipped.batchSliceText(), QStringLiteral("batch-1 slice: no batch Dim: nothing\\x1b is sliced"));
        QVERIFY(skipped.batchSliceJson().toObject().value(QLatin1String("dim")).isNull());
        const ExportResult old = ExportResult::fromResult(json(R"J({"output": "/o.pt2", "verification": []})J"));
        QVERIFY(old.batchSliceText().isEmpty() && old.batchSliceJson().isNull());
    }

    void rangeProbesAreReportedPerDimApartFromTheRecordedCalls()
    {
        // issue 24 item 3: the worker's probes of the declared ranges (probes.py)
        const ExportResult r = ExportResult::fromResult(json(R"J({"output": "/o.pt2", "example_call": 0,
            "verification": [{"call": 0, "status": "ok", "message": null, "outputs": []}],
            "probes": {"seconds": 0.5, "dims": [
                {"dim": "seq_len", "symbol": "s1", "where": "input_ids.size()[1]", "declared": [1, null],
                 "recorded": [4], "cap": 16, "cap_source": "4x the largest recorded, 4", "probed": [1, 2, 5, 16],
                 "served": [2, 5], "rejected": [1], "unverified": [], "wrong": [16]},
                {"dim": "batch", "symbol": "s0", "where": "input_ids.size()[0]", "declared": [1, 64],
                 "recorded": [2], "cap": 8, "cap_source": "4x the largest recorded, 2", "probed": [1, 3, 64],
                 "served": [1, 3, 64], "rejected": [], "unverified": [], "wrong": [], "batch_like": true}],
             "probes": [
                {"dim": "seq_len", "value": 1, "call": 0, "status": "rejected", "guard": "input_ids.size()[1] > 1",
                 "message": "AssertionError: Guard failed: input_ids.size()[1] > 1"},
                {"dim": "seq_len", "value": 2, "call": 0, "status": "served", "message": null, "max_abs": 0.0},
                {"dim": "seq_len", "value": 5, "call": 0, "status": "served", "message": null, "max_abs": 0.0},
                {"dim": "seq_len", "value": 16, "call": 0, "status": "mismatch", "max_abs": 0.5,
                 "message": "the program accepts it and its outputs differ from those of the eager model"},
                {"dim": "batch", "value": 1, "call": 0, "status": "served", "message": null, "max_abs": 0.0},
                {"dim": "batch", "value": 3, "call": 0, "status": "served", "message": null, "max_abs": 0.0,
                 "with": {"seq_len": 5}},
                {"dim": "batch", "value": 64, "call": 0, "status": "served", "message": null, "max_abs": 0.0}]}})J"));
        QVERIFY(r.ok); // probes are synthesized calls: the export's verdict is the recorded calls'
        QVERIFY(r.probes.present);
        QCOMPARE(r.probes.summaryLines(),
                 QStringList({QStringLiteral("seq_len (declared 1..oo): 2..5 served (cap 16: 4x the largest recorded, 4); "
                                             "1 rejected (input_ids.size()[1] > 1); "
                                             "16 WRONG (the program accepts it and its outputs differ from those of the eager model)"),
                              QStringLiteral("batch (declared 1..64): 1..64 served")}));
        QCOMPARE(r.probes.count(QStringLiteral("served")), 5);
        const QJsonObject j = r.probes.toJson().toObject();
        const QJsonObject seq = j.value(QLatin1String("dims")).toArray().first().toObject();
        QCOMPARE(seq.value(QLatin1String("declared")).toArray().at(1).isNull(), true);
        QCOMPARE(seq.value(QLatin1String("rejected")).toArray(), QJsonArray({1}));
        // which cap applied: a batch-like Dim is not capped by positions (--json keeps it)
        QCOMPARE(seq.value(QLatin1String("batch_like")).toBool(), false);
        QCOMPARE(j.value(QLatin1String("dims")).toArray().at(1).toObject().value(QLatin1String("batch_like")).toBool(), true);
        QCOMPARE(j.value(QLatin1String("probes")).toArray().first().toObject().value(QLatin1String("guard")).toString(),
                 QStringLiteral("input_ids.size()[1] > 1"));
        QCOMPARE(j.value(QLatin1String("lines")).toArray().size(), 2);
        // a probe that moved several Dims in one call says which others, and a lone one none
        const QJsonArray rows = j.value(QLatin1String("probes")).toArray();
        QCOMPARE(rows.at(5).toObject().value(QLatin1String("with")).toObject(), QJsonObject({{QStringLiteral("seq_len"), 5}}));
        QVERIFY(rows.at(4).toObject().value(QLatin1String("with")).isNull());
        // write_archive tried the rejected size on the archive's other programs
        ExportResult archived = r;
        archived.probes.applyElsewhere(QJsonArray{QJsonObject{{QStringLiteral("dim"), QStringLiteral("seq_len")},
                                                              {QStringLiteral("value"), 1},
                                                              {QStringLiteral("served_by"), QStringLiteral("phase2")},
                                                              {QStringLiteral("status"), QStringLiteral("served")}}});
        QVERIFY(archived.probes.summaryLines().first().startsWith(
            QStringLiteral("seq_len (declared 1..oo): 2..5 served (cap 16: 4x the largest recorded, 4); 1 rejected "
                           "(input_ids.size()[1] > 1), served by program phase2; ")));
        QCOMPARE(archived.probes.toJson().toObject().value(QLatin1String("probes")).toArray().first().toObject()
                     .value(QLatin1String("served_by")).toString(), QStringLiteral("phase2"));
        // nothing asked: no probes, null in --json; nothing to probe from: the worker's reason
        const ExportResult none = ExportResult::fromResult(json(R"J({"output": "/o.pt2", "verification": []})J"));
        QVERIFY(!none.probes.present && none.probes.toJson().isNull() && none.probes.summaryLines().isEmpty());
        const ExportResult skipped = ExportResult::fromResult(json(R"J({"output": "/o.pt2", "verification": [],
            "probes": {"skipped": "nothing to probe from", "dims": [], "probes": [], "seconds": 0}})J"));
        QCOMPARE(skipped.probes.summaryLines(), QStringList{QStringLiteral("nothing to probe from")});
    }

    void explanationsOnFailureAndSuccess()
    {
        // as the worker (torch 2.14) sends a model whose own code specializes seq_len and
        // caps n: the failure carries what torch decided before it raised
        const WorkerFailure f = WorkerFailure::fromJson(json(R"J({"kind": "constraint_violation",
            "message": "Constraints violated (n, seq_len)!", "names": ["n", "seq_len"], "violations": [],
            "fixes": ["n = Dim('n', max=16)", "seq_len = 4"],
            "explanations": [
              {"kind": "specialized", "expression": "seq_len == 4", "torch_expression": "Eq(s27, 4)",
               "dims": ["seq_len"], "symbols": ["s27"], "value": 4, "reason": "range_refined_to_singleton",
               "sources": [{"source": "L['x'].size()[1]", "path": "x", "dim": 1, "dim_name": "seq_len", "symbol": "s27"}],
               "location": {"file": "/m/spec_model.py", "line": 6, "function": "helper", "code": "if h.shape[1] == 4:"},
               "stack": [{"file": "/t/torch/nn/modules/module.py", "line": 1794, "function": "_call_impl", "code": "return forward_call(*args, **kwargs)", "library": true},
                         {"file": "/m/spec_model.py", "line": 14, "function": "forward", "code": "h = helper(h)", "library": false},
                         {"file": "/m/spec_model.py", "line": 6, "function": "helper", "code": "if h.shape[1] == 4:", "library": false}]},
              {"kind": "range_narrowed", "expression": "n <= 16", "torch_expression": "s17 <= 16", "dims": ["n"],
               "symbols": ["s17"], "value": null, "reason": null,
               "sources": [{"source": "L['y'].size()[0]", "path": "y", "dim": 0, "dim_name": "n", "symbol": "s17"}],
               "location": {"file": "/m/spec_model.py", "line": 15, "function": "forward", "code": "if y.shape[0] > 16:"},
               "stack": [{"file": "/m/spec_model.py", "line": 15, "function": "forward", "code": "if y.shape[0] > 16:", "library": false}]}]})J"));
        QCOMPARE(f.explanations.size(), 2);
        const ShapeExplanation &s = f.explanations[0];
        QCOMPARE(s.kind, QStringLiteral("specialized"));
        QCOMPARE(s.expression, QStringLiteral("seq_len == 4"));
        QCOMPARE(s.torchExpression, QStringLiteral("Eq(s27, 4)"));
        QCOMPARE(s.value, std::optional<qint64>(4));
        QCOMPARE(s.reason, QStringLiteral("range_refined_to_singleton"));
        QCOMPARE(s.sources.size(), 1);
        QCOMPARE(s.sources[0].path, QStringLiteral("x"));
        QCOMPARE(s.sources[0].dim, 1);
        QCOMPARE(s.location.line, 6);
        QCOMPARE(s.stack.size(), 3);
        QVERIFY(s.stack[0].library);
        QVERIFY(!s.stack[2].library);
        QCOMPARE(s.stack[1].location.code, QStringLiteral("h = helper(h)"));
        QCOMPARE(s.toText(), QStringLiteral("/m/spec_model.py:6: specialized: seq_len == 4\n    if h.shape[1] == 4:"));
        QCOMPARE(f.explanations[1].kindText(), QStringLiteral("range narrowed"));
        QVERIFY(!f.explanations[1].value.has_value());
        QCOMPARE(ShapeExplanation::about(f.explanations, QStringLiteral("n")).size(), 1);
        QCOMPARE(ShapeExplanation::about(f.explanations, QStringLiteral("n"))[0].expression, QStringLiteral("n <= 16"));
        // the failure's explanations are the result's (no program was written)
        QCOMPARE(ExportResult::fromFailure(f).explanations.size(), 2);

        // on success: in the result; without a location (torch specialized at the inputs)
        const ExportResult ok = ExportResult::fromResult(json(R"J({"output": "/o.pt2", "example_call": 0,
            "verification": [{"call": 0, "status": "ok", "outputs": []}],
            "explanations": [{"kind": "specialized", "expression": "batch == 1", "torch_expression": "Eq(s0, 1)",
                              "dims": ["batch"], "value": 1, "sources": [], "location": null, "stack": []}]})J"));
        QVERIFY(ok.ok);
        QCOMPARE(ok.explanations.size(), 1);
        QVERIFY(!ok.explanations[0].location.isValid());
        QCOMPARE(ok.explanations[0].toText(), QStringLiteral("specialized: batch == 1 (torch gave no line of the model)"));
        // an older worker sends none
        QVERIFY(ExportResult::fromResult(json(R"J({"output": "/o.pt2", "verification": []})J")).explanations.isEmpty());
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestExportResult)
#include "tst_exportresult.moc"
