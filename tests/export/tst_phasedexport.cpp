// SPDX-License-Identifier: GPL-3.0-or-later
// PhasedExport against the real Python worker, driven and observed through its
// signals alone: a model whose code branches on a size of 1 (like generate()'s
// decode step) cannot be served by one program for calls of sizes 1 and >= 2, so the
// pipeline plans a phase for each before the first trace, and every call replays
// through one of them; a decoder-like model (a cache of length 0 at prefill, a mask
// as long as the cache plus the new tokens) needs one torch.export per program.
// Needs the torch runtime (scripts/setup).
#include "capture/capturereader.h"
#include "export/exportclient.h"
#include "export/exportphases.h"
#include "export/phasedexport.h"
#include "pt2/pt2reader.h"
#include "recordedcapture.h"
#include "inference/shapeinference.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include "deterministictestmain.h"

using namespace dimscope;

namespace {
constexpr int kTimeout = 300000;
}

// Records the calls of `script` on the model class `className` of `modelSource` into
// DIR/calls.safetensors and reads the capture back; nothing and *error when either fails.
static std::optional<Capture> recordedCapture(const QString &dir, const QString &module, const QString &modelSource,
                                              const QString &className, const QString &script, int calls, QString *error)
{
    const QString file = QDir(dir).filePath(QStringLiteral("calls.safetensors"));
    *error = test::recordCapture(dir, module, modelSource, className, script, file, calls);
    if (!error->isEmpty())
        return std::nullopt;
    return CaptureReader::open(file, error);
}

class TestPhasedExport : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void callsOneProgramRejectsGetTheirOwnProgram();
    void withoutPhasesTheRejectedCallsAreListed();
    void decoderPhasesNeedOneTraceEach();
    void aRelationEveryCallSatisfiesBeatsASuggestedMinimum();
    void dataDependentCodeIsExportedWithDraftExport();

private:
    PhasedExportOutcome run(const PhasedExport::Options &options, const QString &output, QSignalSpy **attempts);
    QTemporaryDir m_dir;
    Capture m_capture;
    ConstraintSet m_inferred;
    QStringList m_log; // the worker's log lines of the last run()
};

void TestPhasedExport::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QString error;
    const std::optional<Capture> capture = recordedCapture(
        m_dir.path(), QStringLiteral("branchy"),
        QStringLiteral("import torch\n"
                       "class Branchy(torch.nn.Module):\n"
                       "    def forward(self, x):\n"
                       "        if x.shape[0] == 1:  # one row: a different computation, like a decode step\n"
                       "            return x * 2\n"
                       "        return x - x.mean(0, keepdim=True)\n"),
        QStringLiteral("Branchy"), QStringLiteral("for n in (1, 4, 1, 5, 6):\n    m(torch.randn(n, 3))"), 5, &error);
    QVERIFY2(capture, qPrintable(error));
    m_capture = *capture;
    const InferenceResult inferred = ShapeInference::infer(m_capture, InferenceOptions::defaultsFor(m_capture));
    QVERIFY(!inferred.hasErrors());
    m_inferred = inferred.constraints;
}

PhasedExportOutcome TestPhasedExport::run(const PhasedExport::Options &options, const QString &output,
                                          QSignalSpy **attempts)
{
    ExportClient client;
    m_log.clear();
    connect(&client, &ExportClient::logLine, this, [this](int, const QString &, const QString &text) { m_log << text; });
    PhasedExport pipeline(&client);
    *attempts = new QSignalSpy(&pipeline, &PhasedExport::attemptStarted);
    QSignalSpy finished(&pipeline, &PhasedExport::finished);
    ExportRequest base;
    base.model = m_dir.filePath(QStringLiteral("branchy.py:Branchy"));
    base.capture = m_dir.filePath(QStringLiteral("calls.safetensors"));
    base.output = output;
    pipeline.start(m_capture, m_inferred, base, options);
    if (!finished.wait(kTimeout))
        qWarning("the pipeline did not finish");
    client.shutdown();
    return pipeline.outcome();
}

void TestPhasedExport::callsOneProgramRejectsGetTheirOwnProgram()
{
    QSignalSpy *attempts = nullptr;
    const QString output = m_dir.filePath(QStringLiteral("branchy.pt2"));
    const PhasedExportOutcome outcome = run(PhasedExport::Options{}, output, &attempts);
    std::unique_ptr<QSignalSpy> owned(attempts);
    QVERIFY2(outcome.servesEveryCall(), qPrintable(outcome.summary()));
    QCOMPARE(outcome.programs.size(), 2);
    QCOMPARE(attempts->count(), 2);
    // The first program is exported from a call with >= 2 rows and serves those calls;
    // the calls with one row get a program of their own, beside it.
    QCOMPARE(outcome.programs.at(0).calls, (QVector<int>{1, 3, 4}));
    QCOMPARE(outcome.programs.at(0).result.output, output);
    QCOMPARE(outcome.programs.at(1).calls, (QVector<int>{0, 2}));
    // Both programs in one PT2 archive, "model" and "phase2" (torch >= 2.8), or, where the
    // worker's torch has none, the second in OUT.phase2.pt2 as before.
    const ExportResult &second = outcome.programs.at(1).result;
    QString error;
    const std::optional<Pt2Program> read = Pt2Reader::open(output, &error);
    QVERIFY2(read, qPrintable(error));
    if (read->layout == Pt2Layout::Archive) {
        QCOMPARE(second.output, output);
        QCOMPARE(second.program, QStringLiteral("phase2"));
        QCOMPARE(read->modelNames, (QStringList{QStringLiteral("model"), QStringLiteral("phase2")}));
        QCOMPARE(outcome.programText(1, true), QStringLiteral("branchy.pt2, program phase2"));
    } else {
        QCOMPARE(second.output, ExportPhases::outputPath(output, 2));
        QCOMPARE(second.program, QStringLiteral("model"));
        QCOMPARE(outcome.programText(1, true), QStringLiteral("branchy.phase2.pt2"));
    }
    QVERIFY(outcome.programs.at(1).description.contains(QLatin1String("x dim 0 = 1")));
    for (const ExportedProgram &p : outcome.programs) {
        QVERIFY2(QFileInfo(p.result.output).isFile(), qPrintable(p.result.output));
        QVERIFY(!p.result.held);
        QCOMPARE(p.result.freshProcess.status, QStringLiteral("ok")); // checked in a new interpreter
    }
    // Each program is loaded in a new interpreter once (issue 29): an archive is written
    // once when the run ends and its programs checked in one interpreter (before, `model`
    // was written and checked again with phase2); files of their own, one each.
    const auto count = [this](const QString &text) {
        return std::count_if(m_log.cbegin(), m_log.cend(), [&text](const QString &line) { return line.contains(text); });
    };
    QCOMPARE(count(QStringLiteral("loads through dimscope.load_program")), 2);
    if (read->layout == Pt2Layout::Archive) {
        QCOMPARE(outcome.freshInterpreters, 1);
        QCOMPARE(count(QStringLiteral("1 new interpreter(s) checked them")), 1);
        QVERIFY(!QFileInfo::exists(ExportPhases::outputPath(output, 2)));
    } else {
        QCOMPARE(outcome.freshInterpreters, 2);
    }
    QVERIFY(outcome.leftOut.isEmpty());
    QCOMPARE(outcome.summary(), QStringLiteral("every captured call (5) replays through its 2 programs"));
    // Every round is kept, each attempt's last one being the round that exported its program
    QVERIFY(outcome.rounds.size() >= 2);
    QCOMPARE(outcome.rounds.first().output, output);
    QCOMPARE(outcome.rounds.last().output, outcome.programs.at(1).result.output);
}

void TestPhasedExport::withoutPhasesTheRejectedCallsAreListed()
{
    QSignalSpy *attempts = nullptr;
    PhasedExport::Options options;
    options.fixLoop = false;
    options.phases = false;
    const PhasedExportOutcome outcome = run(options, m_dir.filePath(QStringLiteral("single.pt2")), &attempts);
    std::unique_ptr<QSignalSpy> owned(attempts);
    QCOMPARE(attempts->count(), 1);
    QCOMPARE(outcome.programs.size(), 1);
    QCOMPARE(outcome.unserved, (QVector<int>{0, 2}));
    // Planned for every call, it serves some: its row says which (issue 28, problem 5).
    QCOMPARE(outcome.programs.first().description, ExportPhases::describe(m_capture, {1, 3, 4}));
    QVERIFY(outcome.programs.first().description != QLatin1String("every call"));
    QVERIFY(!outcome.servesEveryCall());
    QCOMPARE(outcome.summary(), QStringLiteral("calls 0, 2 (2 of 5) are served by no exported program"));
}

// Prefill (prompt of 5 or 8, empty cache) and decode (one token, the mask as long as
// the cache plus one) calls: the constraints inferred over every call make the mask's
// length a root Dim, and tracing a decode call finds mask = past + 1, a failed
// torch.export. Planned up front, the decode phase's own calls give the relation and
// the prefill phase a static cache length: two programs, two traces.
void TestPhasedExport::decoderPhasesNeedOneTraceEach()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString error;
    const std::optional<Capture> capture = recordedCapture(
        dir.path(), QStringLiteral("decoder"),
        QStringLiteral("import torch\n"
                       "class Decoder(torch.nn.Module):\n"
                       "    def forward(self, ids, mask, past):\n"
                       "        h = torch.cat([past, ids.float()], dim=1)\n"
                       "        if ids.shape[1] == 1:  # the decode step\n"
                       "            return h * mask\n"
                       "        return h + mask\n"),
        QStringLiteral("Decoder"),
        QStringLiteral("for prompt in (5, 8):\n"
                       "    m(torch.ones(2, prompt, dtype=torch.long), torch.ones(2, prompt), torch.zeros(2, 0))\n"
                       "    for past in range(prompt, prompt + 3):\n"
                       "        m(torch.ones(2, 1, dtype=torch.long), torch.ones(2, past + 1), torch.zeros(2, past))"), 8, &error);
    QVERIFY2(capture, qPrintable(error));
    const InferenceResult inferred = ShapeInference::infer(*capture, InferenceOptions::defaultsFor(*capture));
    QVERIFY(!inferred.hasErrors());

    ExportClient client;
    PhasedExport pipeline(&client);
    QSignalSpy finished(&pipeline, &PhasedExport::finished);
    QSignalSpy attemptsDone(&pipeline, &PhasedExport::attemptFinished);
    QSignalSpy skipped(&pipeline, &PhasedExport::attemptSkipped);
    ExportRequest base;
    base.model = dir.filePath(QStringLiteral("decoder.py:Decoder"));
    base.capture = dir.filePath(QStringLiteral("calls.safetensors"));
    base.output = dir.filePath(QStringLiteral("decoder.pt2"));
    pipeline.start(*capture, inferred.constraints, base, PhasedExport::Options{});
    QVERIFY(finished.wait(kTimeout));
    client.shutdown();
    const PhasedExportOutcome &outcome = pipeline.outcome();
    QVERIFY2(outcome.servesEveryCall(), qPrintable(outcome.summary()));
    QCOMPARE(outcome.programs.size(), 2);
    QCOMPARE(outcome.rounds.size(), 2); // no failed torch.export on the way
    QCOMPARE(outcome.programs.at(0).calls, (QVector<int>{1, 2, 3, 5, 6, 7}));
    QCOMPARE(outcome.programs.at(1).calls, (QVector<int>{0, 4}));
    for (const ExportedProgram &p : outcome.programs) {
        QCOMPARE(p.traces, 1);
        QVERIFY(p.failedTraces.isEmpty());
        QVERIFY(p.appliedFixes.isEmpty());
        QVERIFY2(p.constraintsSource.startsWith(QLatin1String("inferred from its calls")), qPrintable(p.constraintsSource));
    }
    // The decode program's cache length (0 in the prefill calls) is declared from 1, so
    // the step after a 1-token prompt is its call (issue 27 item 1).
    QVERIFY2(outcome.programs.at(0).constraintsSource.contains(QLatin1String(" from 1 (0 in calls of another phase")),
             qPrintable(outcome.programs.at(0).constraintsSource));
    QCOMPARE(outcome.traces, 2);
    QCOMPARE(outcome.tracesText(), QStringLiteral("2 torch.export calls for 2 programs, none failed"));
    // Two programs: the continuation program is asked for (issue 27 item 2); this
    // capture's cache is a plain tensor, not a generate() cache, so the worker says why
    // not, and the export is not failed by it.
    QCOMPARE(skipped.size(), 1);
    QVERIFY2(skipped.first().at(2).toString().startsWith(
                 QStringLiteral("continuation program not exported: no call passes one new token on a non-empty "
                                "past_key_values")),
             qPrintable(skipped.first().at(2).toString()));
    // The log says it per program.
    QCOMPARE(attemptsDone.size(), 2);
    for (const QList<QVariant> &args : std::as_const(attemptsDone))
        QVERIFY2(args.at(2).toString().endsWith(QLatin1String("(torch.export calls: 1)")), qPrintable(args.at(2).toString()));
    // The decode program's mask length follows the cache: past + 1, not a minimum.
    const ConstraintSet &decode = outcome.programs.at(0).constraints;
    const DimAssignment mask = decode.assignment(QStringLiteral("mask"), 1);
    QVERIFY(mask.isNamed() && decode.dim(mask.dim));
    QCOMPARE(decode.dim(mask.dim)->relationText(), decode.assignment(QStringLiteral("past"), 1).dim + QStringLiteral(" + 1"));
}

// Decode calls only, with the user's constraints making the mask's length a root Dim
// (min 2): the model's `mask.shape[1] > 2` makes torch suggest `min=3`; every call has
// mask = past + 1, which keeps it >= 3 wherever torch traces past (>= 2), so the fix
// loop applies that relation instead and says why (issue 27: a decode step after a
// 1-token prompt has a mask of 2).
void TestPhasedExport::aRelationEveryCallSatisfiesBeatsASuggestedMinimum()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString error;
    const std::optional<Capture> capture = recordedCapture(
        dir.path(), QStringLiteral("step"),
        QStringLiteral("import torch\n"
                       "class Step(torch.nn.Module):\n"
                       "    def forward(self, ids, mask, past):\n"
                       "        h = torch.cat([past, ids.float()], dim=1)\n"
                       "        if mask.shape[1] > 2:\n"
                       "            return h * mask.sum(1, keepdim=True)\n"
                       "        return h\n"),
        QStringLiteral("Step"),
        QStringLiteral("for past in range(4, 8):\n"
                       "    m(torch.ones(2, 1, dtype=torch.long), torch.ones(2, past + 1), torch.zeros(2, past))"), 4, &error);
    QVERIFY2(capture, qPrintable(error));
    ConstraintSet edited = ShapeInference::infer(*capture, InferenceOptions::defaultsFor(*capture)).constraints;
    const QString mask = edited.assignment(QStringLiteral("mask"), 1).dim;
    const QString past = edited.assignment(QStringLiteral("past"), 1).dim;
    QVERIFY(!mask.isEmpty() && !past.isEmpty() && mask != past);
    if (edited.dim(mask)->isDerived())
        QVERIFY(edited.makeRoot(mask, 2).isEmpty()); // the user's edit: the mask's own Dim

    ExportClient client;
    PhasedExport pipeline(&client);
    QSignalSpy finished(&pipeline, &PhasedExport::finished);
    QSignalSpy applied(&pipeline, &PhasedExport::fixesApplied);
    ExportRequest base;
    base.model = dir.filePath(QStringLiteral("step.py:Step"));
    base.capture = dir.filePath(QStringLiteral("calls.safetensors"));
    base.output = dir.filePath(QStringLiteral("step.pt2"));
    pipeline.start(*capture, edited, base, PhasedExport::Options{});
    QVERIFY(finished.wait(kTimeout));
    client.shutdown();
    const PhasedExportOutcome &outcome = pipeline.outcome();
    QVERIFY2(outcome.servesEveryCall(), qPrintable(outcome.summary()));
    QCOMPARE(outcome.programs.size(), 1);
    const ExportedProgram &program = outcome.programs.first();
    QCOMPARE(program.traces, 2);
    QCOMPARE(program.failedTraces.size(), 1);
    const DimDecl *decl = program.constraints.dim(mask);
    QVERIFY(decl && decl->isDerived());
    QCOMPARE(decl->relationText(), past + QStringLiteral(" + 1"));
    QCOMPARE(applied.size(), 1);
    const QStringList lines = applied.first().at(2).toStringList();
    QCOMPARE(lines.size(), 1);
    QVERIFY2(lines.first().startsWith(QStringLiteral("%1 = %2 + 1 (instead of %1 = Dim('%1', min=3): every call of "
                                                     "this phase has %1 = %2 + 1, which keeps %1 >= 3 for %2 >= 2)")
                                          .arg(mask, past)),
             qPrintable(lines.first()));
}

// torch stops on a branch over a tensor's value (LongRoPE's `if seq_len > 64` on
// `max(position_ids) + 1`, issue 20 item 3): the fix loop's next round traces with
// torch.export.draft_export, whose decision is an `assumption` with the model's line and
// the program's runtime assertion; where the worker's torch has no draft_export (2.6), the
// attempt ends naming the workaround.
void TestPhasedExport::dataDependentCodeIsExportedWithDraftExport()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QString error;
    const std::optional<Capture> capture = recordedCapture(
        dir.path(), QStringLiteral("longrope"),
        QStringLiteral("import torch\n"
                       "class LongRope(torch.nn.Module):\n"
                       "    def forward(self, x, position_ids):\n"
                       "        if torch.max(position_ids) + 1 > 64:\n"
                       "            return x * 4.0\n"
                       "        return x * 2.0\n"),
        QStringLiteral("LongRope"), QStringLiteral("for n in (5, 8, 12):\n    m(torch.randn(n, 4), torch.arange(n))"), 3, &error);
    QVERIFY2(capture, qPrintable(error));
    const ConstraintSet inferred = ShapeInference::infer(*capture, InferenceOptions::defaultsFor(*capture)).constraints;

    ExportClient client;
    PhasedExport pipeline(&client);
    QSignalSpy finished(&pipeline, &PhasedExport::finished);
    QSignalSpy draft(&pipeline, &PhasedExport::draftExportStarted);
    QSignalSpy attemptFinished(&pipeline, &PhasedExport::attemptFinished);
    ExportRequest base;
    base.model = dir.filePath(QStringLiteral("longrope.py:LongRope"));
    base.capture = dir.filePath(QStringLiteral("calls.safetensors"));
    base.output = dir.filePath(QStringLiteral("longrope.pt2"));
    pipeline.start(*capture, inferred, base, PhasedExport::Options{});
    QVERIFY(finished.wait(kTimeout));
    client.shutdown();
    const PhasedExportOutcome &outcome = pipeline.outcome();
    QVERIFY(!outcome.rounds.isEmpty());
    const WorkerFailure &first = outcome.rounds.first().failure;
    QCOMPARE(first.kind, QStringLiteral("data_dependent"));
    QCOMPARE(first.source.line, 4);
    const QString modelFile = dir.filePath(QStringLiteral("longrope.py"));
    if (!first.json.value(QLatin1String("draft_export_available")).toBool()) { // torch 2.6
        QVERIFY(outcome.programs.isEmpty());
        QCOMPARE(draft.count(), 0);
        const QString why = attemptFinished.last().at(2).toString();
        QVERIFY2(why.contains(QLatin1String("and this torch has no torch.export.draft_export (torch 2.7+)"))
                     && why.contains(QLatin1String("workaround: torch.cond")),
                 qPrintable(why));
        return;
    }
    QVERIFY2(outcome.servesEveryCall(), qPrintable(outcome.summary()));
    QCOMPARE(outcome.programs.size(), 1);
    QCOMPARE(draft.count(), 1);
    QVERIFY2(draft.first().at(2).toString().startsWith(
                 QStringLiteral("torch stopped on data-dependent code at %1:4 (").arg(modelFile)),
             qPrintable(draft.first().at(2).toString()));
    const ExportedProgram &program = outcome.programs.first();
    QCOMPARE(program.traces, 2); // the plain trace that stopped, then the draft export
    QVERIFY(program.result.draftExport);
    QVector<ShapeExplanation> assumptions;
    for (const ShapeExplanation &e : program.result.explanations)
        if (e.kind == QLatin1String("assumption"))
            assumptions << e;
    QCOMPARE(assumptions.size(), 1);
    QCOMPARE(assumptions.first().location.file, modelFile);
    QCOMPARE(assumptions.first().location.line, 4);
    QVERIFY(!assumptions.first().assertion.isEmpty());
    QVERIFY2(assumptions.first().expression.endsWith(QStringLiteral("runtime assertion: ") + assumptions.first().assertion),
             qPrintable(assumptions.first().expression));
    // As the --json report writes it.
    QCOMPARE(assumptions.first().toJson().value(QLatin1String("assertion")).toString(), assumptions.first().assertion);
}

DIMSCOPE_GUILESS_TEST_MAIN(TestPhasedExport)
#include "tst_phasedexport.moc"
