// SPDX-License-Identifier: GPL-3.0-or-later
// GuardExpression (torch's guards in Dim names, evaluated) and GuardFixes (the fix the
// loop applies where torch states a guard but suggests none), with the guard texts the
// worker reported for tiny transformers 5.12 models under torch 2.14: MPT's and
// GPT-Neo's mask guard from masking_utils.py:208, MPT's position-bias slice and OpenAI
// GPT's causal-bias slice (n_positions 256).
#include "capturebuilder.h"
#include "export/exportphases.h"
#include "export/guardexpression.h"
#include "export/guardfixes.h"
#include "export/unnameddims.h"
#include "inference/captureanalysis.h"
#include "export/suggestedfixapplier.h"

#include "deterministictestmain.h"

using namespace dimscope;

namespace {

// Decode steps of two generate() runs (prompts 5 and 8, 3 steps each): the mask is
// one longer than the cache in every call.
Capture decodeCapture()
{
    QStringList text;
    for (int prompt : {5, 8}) {
        for (int step = 1; step < 4; ++step) {
            const int past = prompt + step - 1;
            text << QStringLiteral("input_ids=2x1:i64 attention_mask=2x%1:i64 past_key_values=cache(2:2x2x%2x8)")
                        .arg(past + 1)
                        .arg(past);
        }
    }
    return test::makeCapture(text.join(QLatin1Char('|')));
}

// Prefill calls of prompts 5..12 tokens (seq_len varies).
Capture prefillCapture()
{
    QStringList text;
    for (int n : {5, 8, 12})
        text << QStringLiteral("input_ids=2x%1:i64 attention_mask=2x%1:i64").arg(n);
    return test::makeCapture(text.join(QLatin1Char('|')));
}

ShapeExplanation guard(const QString &expression, const QStringList &dims, const QString &file, int line)
{
    ShapeExplanation e;
    e.kind = QStringLiteral("guard");
    e.expression = expression;
    e.dims = dims;
    e.location.file = file;
    e.location.line = line;
    return e;
}

WorkerFailure violation(const QStringList &names, const QVector<ShapeExplanation> &explanations)
{
    WorkerFailure f = WorkerFailure::make(QStringLiteral("constraint_violation"),
                                          QStringLiteral("Constraints violated (%1)!").arg(names.join(QStringLiteral(", "))));
    f.names = names;
    f.explanations = explanations;
    return f;
}

} // namespace

class TstGuardFixes : public QObject
{
    Q_OBJECT
private slots:
    void expressions_data();
    void expressions();
    void unreadableGuards();
    void maskGuardGetsTheRecordedRelation();
    void narrowedRangeAroundTheRecordedValues();
    void aGuardARecordedCallBreaksGivesNothing();
    void aGuardThatAlwaysHoldsIsDecidedInOnePiece();
    void undecidableGuardsLeaveTheDimsUnnamed();
};

void TstGuardFixes::expressions_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("x");
    QTest::addColumn<qint64>("y");
    QTest::addColumn<qint64>("value");
    QTest::newRow("mask guard") << "past_len - total_len + 1 <= 0" << qint64(7) << qint64(8) << qint64(1);
    QTest::newRow("mask guard broken") << "past_len - total_len + 1 <= 0" << qint64(8) << qint64(8) << qint64(0);
    QTest::newRow("Max") << "256 - Max(0, 256 - past_len)" << qint64(300) << qint64(0) << qint64(256);
    QTest::newRow("python floor division") << "(past_len - 9)//4" << qint64(2) << qint64(0) << qint64(-2);
    QTest::newRow("python modulo") << "Mod(past_len - 9, 4) + (past_len - 9) % 4" << qint64(2) << qint64(0) << qint64(2);
    QTest::newRow("and/or") << "past_len >= 2 and total_len <= 4 or Eq(past_len, 0)" << qint64(0) << qint64(9) << qint64(1);
    QTest::newRow("unary minus") << "-past_len*2 + FloorDiv(total_len, 2)" << qint64(3) << qint64(9) << qint64(-2);
    QTest::newRow("Min Abs Ne") << "Ne(Min(past_len, total_len, 4), Abs(-4))" << qint64(5) << qint64(9) << qint64(0);
}

void TstGuardFixes::expressions()
{
    QFETCH(QString, text);
    QFETCH(qint64, x);
    QFETCH(qint64, y);
    QFETCH(qint64, value);
    const GuardExpression g = GuardExpression::parse(text);
    QVERIFY2(g.isValid(), qPrintable(g.error()));
    const QHash<QString, qint64> values{{QStringLiteral("past_len"), x}, {QStringLiteral("total_len"), y}};
    QCOMPARE(g.evaluate(values), std::optional<qint64>(value));
}

void TstGuardFixes::unreadableGuards()
{
    for (const char *text : {"L['x'].size()[1] != 256", "seq_len <=", "Foo(seq_len) == 1", "(seq_len", "seq_len == 2 )"}) {
        const GuardExpression g = GuardExpression::parse(QLatin1String(text));
        QVERIFY2(!g.isValid(), text);
        QVERIFY(!g.error().isEmpty());
    }
    QVERIFY(!GuardExpression::parse(QString(5000, QLatin1Char('('))).isValid()); // too long: refused, not recursed
    QVERIFY(!GuardExpression::parse(QString(300, QLatin1Char('(')) + QStringLiteral("1") + QString(300, QLatin1Char(')'))).isValid());
    // A value torch never has: overflow and division by zero give no answer.
    QCOMPARE(GuardExpression::parse(QStringLiteral("seq_len * 9223372036854775807")).evaluate({{QStringLiteral("seq_len"), 2}}),
             std::optional<qint64>());
    QCOMPARE(GuardExpression::parse(QStringLiteral("4 // (seq_len - 2)")).evaluate({{QStringLiteral("seq_len"), 2}}),
             std::optional<qint64>());
    QCOMPARE(GuardExpression::parse(QStringLiteral("seq_len + 1")).evaluate({}), std::optional<qint64>());
}

// MPT and GPT-Neo (torch 2.14): "Constraints violated (past_len, total_len)", the guard
// past_len - total_len + 1 <= 0 at masking_utils.py:208, no suggested fix.
void TstGuardFixes::maskGuardGetsTheRecordedRelation()
{
    const Capture capture = decodeCapture();
    ConstraintSet set = CaptureAnalysis::infer(capture, InferenceOptions::defaultsFor(capture)).constraints;
    QVERIFY(set.dim(QStringLiteral("past_len")) && set.dim(QStringLiteral("total_len")));
    // The user's constraints: total_len a root of its own.
    if (set.dim(QStringLiteral("total_len"))->isDerived())
        QCOMPARE(set.makeRoot(QStringLiteral("total_len"), 2), QString());
    const WorkerFailure failure = violation(
        {QStringLiteral("past_len"), QStringLiteral("total_len")},
        {guard(QStringLiteral("past_len - total_len + 1 <= 0"), {QStringLiteral("past_len"), QStringLiteral("total_len")},
               QStringLiteral("/usr/lib/python3/dist-packages/transformers/masking_utils.py"), 208)});
    const QVector<GuardFixes::Fix> fixes = GuardFixes::derive(failure, capture, set);
    QCOMPARE(fixes.size(), 1);
    QCOMPARE(fixes[0].line, QStringLiteral("total_len = past_len + 1"));
    QVERIFY2(fixes[0].note.contains(QLatin1String("past_len - total_len + 1 <= 0 (transformers/masking_utils.py:208) and no fix")),
             qPrintable(fixes[0].note));
    QVERIFY(fixes[0].note.contains(QLatin1String("every call of this phase has total_len = past_len + 1")));
    // A guard the relation breaks somewhere (past_len >= 2*total_len) gives nothing.
    WorkerFailure other = failure;
    other.explanations[0].expression = QStringLiteral("past_len - 2*total_len <= -9");
    QVERIFY(GuardFixes::derive(other, capture, set).isEmpty());
    // torch's own fixes come first: nothing derived when it suggested some.
    WorkerFailure withFixes = failure;
    withFixes.fixes = QStringList{QStringLiteral("total_len = past_len + 1")};
    QVERIFY(GuardFixes::derive(withFixes, capture, set).isEmpty());
}

// OpenAI GPT after `seq_len = Dim('seq_len', max=256)`: the guard seq_len != 256 and no
// fix; MPT's position-bias guard seq_len == 256 - Max(0, 256 - seq_len) (seq_len <= 256).
void TstGuardFixes::narrowedRangeAroundTheRecordedValues()
{
    const Capture capture = prefillCapture();
    ConstraintSet set = CaptureAnalysis::infer(capture, InferenceOptions::defaultsFor(capture)).constraints;
    QVERIFY(set.dim(QStringLiteral("seq_len")));
    QCOMPARE(set.setRange(QStringLiteral("seq_len"), 2, 256), QString());
    const QString openai = QStringLiteral("/x/transformers/models/openai/modeling_openai.py");
    const auto fixes = GuardFixes::derive(
        violation({QStringLiteral("seq_len")}, {guard(QStringLiteral("seq_len != 256"), {QStringLiteral("seq_len")}, openai, 72)}),
        capture, set);
    QCOMPARE(fixes.size(), 1);
    QCOMPARE(fixes[0].line, QStringLiteral("seq_len = Dim('seq_len', min=2, max=255)"));
    QVERIFY2(fixes[0].note.contains(QLatin1String("seq_len != 256 (openai/modeling_openai.py:72)")), qPrintable(fixes[0].note));
    QVERIFY(fixes[0].note.contains(QLatin1String("it holds for seq_len in [2, 255], which has every recorded seq_len (5..12)")));

    ConstraintSet unbounded = set;
    QCOMPARE(unbounded.setRange(QStringLiteral("seq_len"), 2, std::nullopt), QString());
    const QString mpt = QStringLiteral("/x/transformers/models/mpt/modeling_mpt.py");
    const auto both = GuardFixes::derive(
        violation({QStringLiteral("seq_len")},
                  {guard(QStringLiteral("seq_len == 256 - Max(0, 256 - seq_len)"), {QStringLiteral("seq_len")}, mpt, 121),
                   guard(QStringLiteral("256 != 256 - Max(0, 256 - seq_len)"), {QStringLiteral("seq_len")}, mpt, 119)}),
        capture, unbounded);
    QCOMPARE(both.size(), 2); // each narrows further what the one before left
    QCOMPARE(both[0].line, QStringLiteral("seq_len = Dim('seq_len', min=2, max=256)"));
    QCOMPARE(both[1].line, QStringLiteral("seq_len = Dim('seq_len', min=2, max=255)"));
}

void TstGuardFixes::aGuardARecordedCallBreaksGivesNothing()
{
    const Capture capture = prefillCapture();
    const ConstraintSet set = CaptureAnalysis::infer(capture, InferenceOptions::defaultsFor(capture)).constraints;
    // seq_len 12 is recorded: no range of seq_len makes seq_len <= 8 hold for every call.
    QVERIFY(GuardFixes::derive(violation({QStringLiteral("seq_len")},
                                         {guard(QStringLiteral("seq_len <= 8"), {QStringLiteral("seq_len")}, {}, 0)}),
                               capture, set)
                .isEmpty());
    // A guard on a Dim torch did not list, or one that names no Dim of the set, neither.
    QVERIFY(GuardFixes::derive(violation({QStringLiteral("batch")},
                                         {guard(QStringLiteral("seq_len != 256"), {QStringLiteral("seq_len")}, {}, 0)}),
                               capture, set)
                .isEmpty());
    QVERIFY(GuardFixes::derive(violation({QStringLiteral("seq_len")},
                                         {guard(QStringLiteral("other != 256"), {QStringLiteral("seq_len")}, {}, 0)}),
                               capture, set)
                .isEmpty());
}

// GLM-MoE-DSA's indexer (`topk = min(index_topk, T)`, 2048): torch reports the guard
// Min(2048, seq_len) <= seq_len as violated on [2, oo] though it holds everywhere, and
// decides it once seq_len <= 2048, where the Min is seq_len; for the decode phase the
// guard is on past_len + 1 (past_len <= 2047). A guard that holds everywhere and has no
// Max/Min (masking_utils' `-seq_len + seq_len <= 0`) gives nothing.
void TstGuardFixes::aGuardThatAlwaysHoldsIsDecidedInOnePiece()
{
    const QString glm = QStringLiteral("/x/transformers/models/glm_moe_dsa/modeling_glm_moe_dsa.py");
    const QString masking = QStringLiteral("/x/transformers/masking_utils.py");
    const Capture prefill = prefillCapture();
    const ConstraintSet set = CaptureAnalysis::infer(prefill, InferenceOptions::defaultsFor(prefill)).constraints;
    const auto fixes = GuardFixes::derive(
        violation({QStringLiteral("seq_len")},
                  {guard(QStringLiteral("-seq_len + seq_len <= 0"), {QStringLiteral("seq_len")}, masking, 208),
                   guard(QStringLiteral("Min(2048, seq_len) <= seq_len"), {QStringLiteral("seq_len")}, glm, 262)}),
        prefill, set);
    QCOMPARE(fixes.size(), 1);
    QCOMPARE(fixes[0].line, QStringLiteral("seq_len = Dim('seq_len', min=2, max=2048)"));
    QVERIFY2(fixes[0].note.contains(QLatin1String("though it holds for every seq_len tried")), qPrintable(fixes[0].note));
    QVERIFY(fixes[0].note.contains(QLatin1String("(glm_moe_dsa/modeling_glm_moe_dsa.py:262)")));

    const Capture decode = decodeCapture();
    ConstraintSet related = CaptureAnalysis::infer(decode, InferenceOptions::defaultsFor(decode)).constraints;
    QVERIFY(related.dim(QStringLiteral("past_len")) && related.dim(QStringLiteral("total_len")));
    QCOMPARE(related.makeDerived(QStringLiteral("total_len"), QStringLiteral("past_len"), 1, 1), QString());
    const auto decodeFixes = GuardFixes::derive(
        violation({QStringLiteral("past_len")},
                  {guard(QStringLiteral("Min(2048, past_len + 1) <= past_len + 1"), {QStringLiteral("past_len")}, glm, 262)}),
        decode, related);
    QCOMPARE(decodeFixes.size(), 1);
    QVERIFY2(decodeFixes[0].line.endsWith(QLatin1String("max=2047)")), qPrintable(decodeFixes[0].line));

    // Past 2048 the Min is the constant: recorded calls on both sides give no single piece.
    QVERIFY(GuardFixes::derive(violation({QStringLiteral("seq_len")},
                                         {guard(QStringLiteral("Min(6, seq_len) <= seq_len"), {QStringLiteral("seq_len")}, glm, 262)}),
                               prefill, set)
                .isEmpty());
}

// XLNet (torch 2.14): its relative shift guards the prefill's seq_len with ceilings of
// float divisions, which hold for every size but which no fix torch states or
// GuardFixes derives can express. The last resort exports the Dim as Dim.DYNAMIC.
void TstGuardFixes::undecidableGuardsLeaveTheDimsUnnamed()
{
    const QString xlnet = QStringLiteral("/x/transformers/models/xlnet/modeling_xlnet.py");
    const Capture prefill = prefillCapture();
    const ConstraintSet set = CaptureAnalysis::infer(prefill, InferenceOptions::defaultsFor(prefill)).constraints;
    QVERIFY(set.dim(QStringLiteral("seq_len")));
    const WorkerFailure failure = violation(
        {QStringLiteral("seq_len")},
        {guard(QStringLiteral("batch*CeilToInt(FloatTrueDiv(ToFloat(-2*seq_len), -1.0)) >= batch"),
               {QStringLiteral("batch"), QStringLiteral("seq_len")}, xlnet, 181)});
    QVERIFY(GuardFixes::derive(failure, prefill, set).isEmpty());
    const auto fixes = UnnamedDims::lastResort(failure, set);
    QCOMPARE(fixes.size(), 1);
    QCOMPARE(fixes[0].line, QStringLiteral("seq_len = Dim.DYNAMIC"));
    QVERIFY2(fixes[0].note.contains(QLatin1String("torch could not decide its guards on seq_len")), qPrintable(fixes[0].note));

    // Applied, every use of seq_len is Dim.DYNAMIC and the Dim is gone.
    ConstraintSet after = set;
    QCOMPARE(SuggestedFixApplier::applyFix(&after, ExportErrorParser::parseFix(fixes[0].line)), QString());
    QVERIFY(!after.dim(QStringLiteral("seq_len")));
    QCOMPARE(after.assignment(QStringLiteral("input_ids"), 1), DimAssignment::makeDynamic());
    QCOMPARE(after.assignment(QStringLiteral("attention_mask"), 1), DimAssignment::makeDynamic());
    QVERIFY(after.checkInvariants().isEmpty());

    // Nothing for a Dim that is unnamed already, or for another kind of failure.
    QVERIFY(UnnamedDims::lastResort(failure, after).isEmpty());
    WorkerFailure other = failure;
    other.kind = QStringLiteral("export_failed");
    QVERIFY(UnnamedDims::lastResort(other, set).isEmpty());
}

DIMSCOPE_GUILESS_TEST_MAIN(TstGuardFixes)
#include "tst_guardfixes.moc"
