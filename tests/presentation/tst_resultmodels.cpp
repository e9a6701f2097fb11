// SPDX-License-Identifier: GPL-3.0-or-later
// The export result tables without torch: Pt2InputsModel on the .pt2 that torch 2.6
// saved (tests/fixtures), VerificationModel on a worker answer as the protocol sends it
// (docs/worker-protocol.md). Both checked by QAbstractItemModelTester while they fill.
#include "deterministictestmain.h"
#include "modeldump.h"
#include "verificationanswer.h"
#include "models/programsmodel.h"
#include "models/pt2inputsmodel.h"
#include "models/verificationmodel.h"

#include "export/exportresult.h"
#include "pt2/pt2dimmapper.h"
#include "pt2/pt2reader.h"

#include <QAbstractItemModelTester>
#include <QColor>
#include <QJsonDocument>
#include <QTest>

using namespace dimscope;

namespace {

QString samplePath() { return QStringLiteral(DIMSCOPE_SOURCE_DIR "/tests/fixtures/torch-2.6/llm-like-cache.pt2"); }

// The sample's leaves as a capture names them, in flattening order.
const QStringList kLeaves{QStringLiteral("input_ids"), QStringLiteral("attention_mask"),
                          QStringLiteral("past_key_values.key_cache[0]"), QStringLiteral("past_key_values.key_cache[1]"),
                          QStringLiteral("past_key_values.value_cache[0]"), QStringLiteral("past_key_values.value_cache[1]")};

QStringList names(std::initializer_list<const char *> list)
{
    QStringList out;
    for (const char *n : list)
        out << QString::fromLatin1(n);
    return out;
}

// The user's Dims for every leaf; `cache` for the four cache tensors.
QHash<QString, QStringList> userDims(const QStringList &cache)
{
    QHash<QString, QStringList> dims{{kLeaves.at(0), names({"batch", "seq"})}, {kLeaves.at(1), names({"batch", "total"})}};
    for (int i = 2; i < kLeaves.size(); ++i)
        dims.insert(kLeaves.at(i), cache);
    return dims;
}

} // namespace

class TestResultModels : public QObject
{
    Q_OBJECT

private slots:
    void programInputsInTheUsersNames();
    void programInputsFlagSpecializedDims();
    void programInputsClear();
    void verificationRows();
    void verificationClear();
    void verificationRowRebuiltDiffers();
    void programsNamedByFileAndProgram();
    void synthesizedProgramServesNoCapturedCall();
    void aNarrowedProgramSaysSoInItsPhase();
    void aProgramTakingSizesAsRecordedSaysSoInItsPhase();
};

// Sizes no recorded call varied (issue 27, UnvariedSizes): the Phase column says the
// program takes some sizes as recorded, and its tooltip names them, as the CLI does.
void TestResultModels::aProgramTakingSizesAsRecordedSaysSoInItsPhase()
{
    ProgramsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ExportedProgram program;
    program.result.output = QStringLiteral("/out/gemma2.pt2");
    program.description = QStringLiteral("every call");
    const QString line = QStringLiteral("attention_mask['sliding_attention'] dim 3 is 8 in every recorded call, so the "
                                        "program takes 8 only (guard attention_mask['sliding_attention'].shape[3] == 8)");
    program.unvaried = QStringList{line};
    model.setPrograms({program});
    const QModelIndex phase = model.index(0, ProgramsModel::PhaseColumn);
    QCOMPARE(phase.data().toString(), QStringLiteral("every call (sizes as recorded)"));
    QVERIFY(phase.data(Qt::ToolTipRole).toString().contains(line));
    QVERIFY(!phase.data(Qt::ToolTipRole).toString().contains(QStringLiteral("Narrower")));
}

// A program the fix loop left narrower than its constraints (issue 24 item 2): the
// Phase column says so and its tooltip names what, as the CLI's warning does.
void TestResultModels::aNarrowedProgramSaysSoInItsPhase()
{
    ProgramsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ExportedProgram decode, prefill;
    decode.result.output = prefill.result.output = QStringLiteral("/out/llava.pt2");
    decode.result.program = QStringLiteral("model");
    decode.description = QStringLiteral("input_ids dim 1 = 1");
    prefill.result.program = QStringLiteral("phase2");
    prefill.description = QStringLiteral("with pixel_values");
    prefill.narrowed = QStringList{QStringLiteral("pixel_values dim 0 is 2 only (asked: batch [2, oo])")};
    model.setPrograms({decode, prefill});
    QCOMPARE(model.index(0, ProgramsModel::PhaseColumn).data().toString(), QStringLiteral("input_ids dim 1 = 1"));
    QCOMPARE(model.index(1, ProgramsModel::PhaseColumn).data().toString(),
             QStringLiteral("with pixel_values (narrower than asked)"));
    QVERIFY(model.index(1, ProgramsModel::PhaseColumn).data(Qt::ToolTipRole).toString().contains(
        QStringLiteral("pixel_values dim 0 is 2 only (asked: batch [2, oo])")));
}

// The continuation program (issue 27 item 2) is one more row with its phase; it serves
// none of the captured calls and says which synthesized calls it was verified on.
void TestResultModels::synthesizedProgramServesNoCapturedCall()
{
    ProgramsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ExportedProgram decode, continuation;
    decode.result.output = continuation.result.output = QStringLiteral("/out/llama.pt2");
    decode.result.program = QStringLiteral("model");
    decode.calls = {1, 2, 3};
    decode.description = QStringLiteral("input_ids dim 1 = 1");
    continuation.result.program = QStringLiteral("phase3");
    continuation.description = QStringLiteral("continuation: several new tokens on a non-empty cache");
    continuation.synthesized = QStringLiteral("verified on 3 call(s) synthesized from call 4: 2 + 6, 2 + 5, 3 + 5 tokens, "
                                              "cached + new");
    model.setPrograms({decode, continuation});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, ProgramsModel::CallsColumn).data().toString(), QStringLiteral("1-3"));
    QCOMPARE(model.index(1, ProgramsModel::FileColumn).data().toString(), QStringLiteral("llama.pt2, program phase3"));
    QCOMPARE(model.index(1, ProgramsModel::CallsColumn).data().toString(), QStringLiteral("none recorded"));
    QCOMPARE(model.index(1, ProgramsModel::PhaseColumn).data().toString(),
             QStringLiteral("continuation: several new tokens on a non-empty cache"));
    QVERIFY(model.index(1, ProgramsModel::CallsColumn).data(Qt::ToolTipRole).toString().contains(
        QStringLiteral("synthesized from call 4")));
    QCOMPARE(continuation.callsText(), QStringLiteral("none recorded (%1)").arg(continuation.synthesized));
    QCOMPARE(decode.callsText(), QStringLiteral("1-3"));
}

// The programs of one PT2 archive (issue 29 item 2) are told apart by their names in
// it; programs in files of their own by the files.
void TestResultModels::programsNamedByFileAndProgram()
{
    ProgramsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto program = [](const QString &output, const QString &name, QVector<int> calls) {
        ExportedProgram p;
        p.result.output = output;
        p.result.program = name;
        p.calls = calls;
        return p;
    };
    model.setPrograms({program(QStringLiteral("/out/llama.pt2"), QStringLiteral("model"), {0, 4}),
                       program(QStringLiteral("/out/llama.pt2"), QStringLiteral("phase2"), {1, 2, 3})});
    QCOMPARE(model.index(0, ProgramsModel::FileColumn).data().toString(), QStringLiteral("llama.pt2, program model"));
    QCOMPARE(model.index(1, ProgramsModel::FileColumn).data().toString(), QStringLiteral("llama.pt2, program phase2"));
    QVERIFY(model.index(1, ProgramsModel::FileColumn).data(Qt::ToolTipRole).toString().endsWith(
        QStringLiteral("llama.pt2, program phase2")));
    model.setPrograms({program(QStringLiteral("/out/llama.pt2"), QStringLiteral("model"), {0, 4}),
                       program(QStringLiteral("/out/llama.phase2.pt2"), QStringLiteral("model"), {1, 2, 3})});
    QCOMPARE(model.index(0, ProgramsModel::FileColumn).data().toString(), QStringLiteral("llama.pt2"));
    QCOMPARE(model.index(1, ProgramsModel::FileColumn).data().toString(), QStringLiteral("llama.phase2.pt2"));
}

void TestResultModels::programInputsInTheUsersNames()
{
    // Given the program torch saved and the Dims the user asked for
    QString error;
    const std::optional<Pt2Program> program = Pt2Reader::open(samplePath(), &error);
    QVERIFY2(program, qPrintable(error));
    const Pt2DimMapping mapping = Pt2DimMapper::map(*program, kLeaves, userDims(names({"batch", "static", "past", "static"})));
    Pt2InputsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);

    // When the export panel shows it
    model.setProgram(*program, mapping);

    // Then there is one row per user input, sizes in torch's symbols and in the user's Dims
    QCOMPARE(model.rowCount(), kLeaves.size());
    QCOMPARE(model.columnCount(), int(Pt2InputsModel::ColumnCount));
    QCOMPARE(model.headerData(Pt2InputsModel::DimsColumn, Qt::Horizontal).toString(), QStringLiteral("Sizes (Dims)"));
    for (int r = 0; r < kLeaves.size(); ++r)
        QCOMPARE(model.index(r, Pt2InputsModel::InputColumn).data().toString(), kLeaves.at(r));
    QCOMPARE(model.index(0, Pt2InputsModel::SymbolsColumn).data().toString(), QStringLiteral("s0 × s1"));
    QCOMPARE(model.index(0, Pt2InputsModel::DimsColumn).data().toString(), QStringLiteral("batch × seq"));
    QCOMPARE(model.index(1, Pt2InputsModel::DimsColumn).data().toString(), QStringLiteral("batch × total"));
    QCOMPARE(model.index(2, Pt2InputsModel::DimsColumn).data().toString(), QStringLiteral("batch × 4 × past × 8"));
    QCOMPARE(model.index(2, Pt2InputsModel::DeviceColumn).data().toString(), QStringLiteral("cpu"));
    // and nothing is flagged: every dim is what the user asked for
    QCOMPARE(model.flaggedCount(), 0);
    for (int r = 0; r < model.rowCount(); ++r)
        QCOMPARE(model.index(r, Pt2InputsModel::NoteColumn).data().toString(), QString());
}

void TestResultModels::programInputsFlagSpecializedDims()
{
    // Given a user who wanted the cache's heads dynamic (torch made them the constant 4)
    const std::optional<Pt2Program> program = Pt2Reader::open(samplePath(), nullptr);
    QVERIFY(program);
    const Pt2DimMapping mapping = Pt2DimMapper::map(*program, kLeaves, userDims(names({"batch", "heads", "past", "static"})));
    Pt2InputsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);

    model.setProgram(*program, mapping);

    // Then each cache tensor's row says so, in red
    QCOMPARE(model.flaggedCount(), 4);
    const QModelIndex note = model.index(2, Pt2InputsModel::NoteColumn);
    QCOMPARE(note.data().toString(), QStringLiteral("dim 1: heads wanted dynamic, exported static (4)"));
    QCOMPARE(note.data(Qt::ForegroundRole).value<QColor>(), QColor(Qt::red));
    QCOMPARE(model.index(2, 0).data(Pt2InputsModel::FlaggedDimsRole).value<QList<int>>(), QList<int>{1});
    QCOMPARE(model.index(0, Pt2InputsModel::NoteColumn).data().toString(), QString());
    QVERIFY(!model.index(0, Pt2InputsModel::DimsColumn).data(Qt::ForegroundRole).isValid());
}

void TestResultModels::programInputsClear()
{
    const std::optional<Pt2Program> program = Pt2Reader::open(samplePath(), nullptr);
    QVERIFY(program);
    Pt2InputsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    // Without the user's constraints the sizes are torch's symbols
    model.setProgram(*program);
    QCOMPARE(model.index(0, Pt2InputsModel::DimsColumn).data().toString(), QStringLiteral("s0 × s1"));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TestResultModels::verificationRows()
{
    // Given the worker's answer to an export whose program refuses some calls
    QJsonParseError parseError;
    const QJsonDocument answer = QJsonDocument::fromJson(test::kVerificationFailed, &parseError);
    QVERIFY2(answer.isObject(), qPrintable(parseError.errorString()));
    const ExportResult result = ExportResult::fromFailure(WorkerFailure::fromJson(answer.object()));
    VerificationModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);

    // When the export panel shows the verification
    model.setVerification(result.verification, result.exampleCall);

    // Then the user reads one row per call: the example marked, the guard that refused
    // call 1, the first line of call 2's error, the output that differs in call 3
    QCOMPARE(model.acceptedCount(), 1);
    QCOMPARE(test::dumpModel(&model),
             QStringLiteral("0 (example) | accepted | 1.5e-07 | 2e-06\n"
                            "1 | rejected |  |  | served by no program; this one needs input_ids dim 1 == 1 (a guard torch "
                            "put in the program)\n"
                            "2 | rejected |  |  | served by no program; this one rejects it: RuntimeError: Expected input at "
                            "*args[1].shape[0] to be equal to 2, but got 3\n"
                            "3 | output mismatch | 0.25 | 0.5 | output.logits: value differs\n"));
    QCOMPARE(model.index(1, VerificationModel::StatusColumn).data(Qt::ForegroundRole).value<QColor>(), QColor(Qt::red));
    QCOMPARE(model.index(0, VerificationModel::StatusColumn).data(Qt::UserRole).toBool(), true);
    QVERIFY(model.index(2, VerificationModel::DetailColumn).data(Qt::ToolTipRole).toString().endsWith(QLatin1String("\nmore")));

    // A call another program of the export serves is that program's, not a rejection
    // (issue 28, problem 5): its name, no colour, torch's rejection in the tooltip.
    model.setVerification(result.verification, result.exampleCall, {{1, QStringLiteral("m.phase2.pt2")}});
    QCOMPARE(model.index(1, VerificationModel::StatusColumn).data().toString(), QStringLiteral("served by m.phase2.pt2"));
    QVERIFY(!model.index(1, VerificationModel::StatusColumn).data(Qt::ForegroundRole).isValid());
    QVERIFY(model.index(1, VerificationModel::StatusColumn).data(Qt::ToolTipRole).toString().contains(
        QLatin1String("input_ids dim 1 == 1")));
    QCOMPARE(model.index(1, VerificationModel::DetailColumn).data().toString(),
             QStringLiteral("another phase: this program is not for it"));
    QCOMPARE(model.index(2, VerificationModel::StatusColumn).data(Qt::ForegroundRole).value<QColor>(), QColor(Qt::red));
    QCOMPARE(model.acceptedCount(), 1); // this program's own
}

void TestResultModels::verificationClear()
{
    const ExportResult result = ExportResult::fromFailure(
        WorkerFailure::fromJson(QJsonDocument::fromJson(test::kVerificationFailed).object()));
    VerificationModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setVerification(result.verification, result.exampleCall);
    QCOMPARE(model.rowCount(), 4);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.acceptedCount(), 0);
}

DIMSCOPE_GUILESS_TEST_MAIN(TestResultModels)
// Issue 27 item 4 (a): a call whose rebuilt inputs make the model differ from its
// recorded outputs is shown as such, red, with the worker's words in the detail.
void TestResultModels::verificationRowRebuiltDiffers()
{
    const ExportResult result = ExportResult::fromResult(QJsonDocument::fromJson(R"J({"output": "/tmp/m.pt2",
      "example_call": 1, "device": "cpu", "verification": [{"call": 5, "status": "rebuilt_differs", "recorded": "compared",
      "message": "the model's outputs on the rebuilt call differ from those recorded at capture time (max abs 0.0384, max rel 27.5 at output['logits'])",
      "rebuilt_difference": {"path": "output['logits']", "max_abs": 0.0384, "max_rel": 27.5}, "outputs": []}]})J").object());
    VerificationModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setVerification(result.verification, result.exampleCall);
    QCOMPARE(model.acceptedCount(), 0);
    QCOMPARE(model.index(0, VerificationModel::StatusColumn).data().toString(),
             QStringLiteral("rebuilt call differs from recording"));
    QCOMPARE(model.index(0, VerificationModel::StatusColumn).data(Qt::ForegroundRole).value<QColor>(), QColor(Qt::red));
    QVERIFY(model.index(0, VerificationModel::DetailColumn).data().toString().contains(
        QLatin1String("differ from those recorded at capture time (max abs 0.0384, max rel 27.5 at output['logits'])")));
}

#include "tst_resultmodels.moc"
