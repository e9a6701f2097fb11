// SPDX-License-Identifier: GPL-3.0-or-later
// ExportPhases::plan and derivedRelation without torch: a capture shaped like two
// generate() runs of a transformers decoder (what tinymodels.py records: the prefill's
// empty cache at length 0, the 2D mask as long as past + new tokens) is split into its
// decode and prefill phases before any trace, each with constraints that hold in its
// own calls; a user's edits survive in every phase. Inputs recorded from
// value_if_missing in every call of a phase are left out of it (issue 20).
#include "capturebuilder.h"
#include "export/exportphases.h"
#include "export/substitutedinputs.h"
#include "inference/captureanalysis.h"

#include "deterministictestmain.h"

using namespace dimscope;

namespace {

// Prompts of 5 and 8 tokens, 4 steps each: calls 0 and 4 prefill, the others decode.
// `batches`: the batch of each generate() run.
Capture generateCapture(QPair<int, int> batches = {2, 2}, const QVector<int> &prompts = {5, 8})
{
    QStringList text;
    for (int prompt : prompts) {
        const int batch = prompt == 5 ? batches.first : batches.second;
        for (int step = 0; step < 4; ++step) {
            const int seq = step == 0 ? prompt : 1;
            const int past = step == 0 ? 0 : prompt + step - 1;
            text << QStringLiteral("input_ids=%4x%1:i64 attention_mask=%4x%2:i64 past_key_values=cache(2:%4x2x%3x8)")
                        .arg(seq)
                        .arg(past + seq)
                        .arg(past)
                        .arg(batch);
        }
    }
    Capture capture = test::makeCapture(text.join(QLatin1Char('|')));
    capture.modelClass = QStringLiteral("transformers.models.llama.modeling_llama.LlamaForCausalLM");
    capture.transformersVersion = QStringLiteral("5.12.0");
    return capture;
}

ConstraintSet proposalFor(const Capture &capture)
{
    return CaptureAnalysis::infer(capture, InferenceOptions::defaultsFor(capture)).constraints;
}

// The Dim a leaf dim is assigned to in `set` ("" when not a named Dim).
QString dimOf(const ConstraintSet &set, const QString &path, int dim)
{
    const DimAssignment a = set.assignment(path, dim);
    return a.isNamed() ? a.dim : QString();
}

} // namespace

class TstExportPhases : public QObject
{
    Q_OBJECT
private slots:
    void generateCaptureIsSplitBeforeTheFirstTrace();
    void decodePhaseCarriesTheMaskRelation();
    void oneStructureIsOnePhaseWithTheGivenConstraints();
    void aCallOfTheGeneralShapeTriesOneProgramFirst();
    void userEditsSurviveInEveryPhase();
    void derivedRelationNeedsEveryCallAndTwoValues();
    void aBatchOfOneSharesItsPhaseWithLargerBatches();
    void aPrefillRecordedOnceKeepsItsPromptLengthADim();
    void substitutedImagesAreLeftOutOfTheDecodePhase();
    void aSubstituteOfTheSameSizeClassIsAPhaseOfItsOwn();
    void aSubstituteBesideCallsThatPassedItStaysInTheirProgram();
};

void TstExportPhases::generateCaptureIsSplitBeforeTheFirstTrace()
{
    const Capture capture = generateCapture();
    const ConstraintSet proposal = proposalFor(capture);
    const QVector<ExportPhases::PlannedPhase> phases = ExportPhases::plan(capture, proposal, proposal);
    QCOMPARE(phases.size(), 2);
    // The phase with the most calls first: it keeps OUT.pt2.
    QCOMPARE(phases.at(0).calls, (QVector<int>{1, 2, 3, 5, 6, 7}));
    QCOMPARE(phases.at(1).calls, (QVector<int>{0, 4}));
    for (const ExportPhases::PlannedPhase &p : phases) {
        QVERIFY2(p.error.isEmpty(), qPrintable(p.error));
        QVERIFY2(p.source.startsWith(QLatin1String("inferred from its calls")), qPrintable(p.source));
        QVERIFY(p.constraints.checkInvariants().isEmpty());
    }
    // The prefill phase: the cache length is 0 in each of its calls, so static there
    // (torch would specialize it); the prompt length stays a Dim.
    const ConstraintSet &prefill = phases.at(1).constraints;
    QVERIFY(dimOf(prefill, QStringLiteral("past_key_values.key_cache[0]"), 2).isEmpty());
    QVERIFY(!dimOf(prefill, QStringLiteral("input_ids"), 1).isEmpty());
    QVERIFY(!dimOf(prefill, QStringLiteral("input_ids"), 0).isEmpty()); // the batch
}

void TstExportPhases::decodePhaseCarriesTheMaskRelation()
{
    const Capture capture = generateCapture();
    const ConstraintSet proposal = proposalFor(capture);
    // Over every call the mask's length is its own Dim (prefill: the prompt; decode: past + 1).
    const QString total = dimOf(proposal, QStringLiteral("attention_mask"), 1);
    QVERIFY(!total.isEmpty());
    QVERIFY(!proposal.dim(total)->isDerived());
    const ConstraintSet decode = ExportPhases::plan(capture, proposal, proposal).at(0).constraints;
    const QString mask = dimOf(decode, QStringLiteral("attention_mask"), 1);
    const QString past = dimOf(decode, QStringLiteral("past_key_values.key_cache[0]"), 2);
    QVERIFY(!mask.isEmpty() && !past.isEmpty());
    const DimDecl *decl = decode.dim(mask);
    QVERIFY(decl);
    // total_len = past_len + 1, not a root Dim torch then raises to min 3.
    QVERIFY2(decl->isDerived() && decl->root == past && decl->a == 1 && decl->b == 1,
             qPrintable(decl->relationText()));
    // Issue 27 item 1: the cache length is 0 in the prefill calls, so it grows from
    // empty, and the decode step after a 1-token prompt has a cache of 1: declared from 1
    // (torch's default minimum of 2 rejected it: attention_mask.size()[1] >= 3).
    const ExportPhases::PlannedPhase decodePhase = ExportPhases::plan(capture, proposal, proposal).at(0);
    QCOMPARE(decode.dim(past)->min, std::optional<qint64>(1));
    QVERIFY2(decodePhase.source.contains(past + QStringLiteral(" from 1 (0 in calls of another phase")),
             qPrintable(decodePhase.source));
    // The prefill's prompt length is never 0 anywhere: it keeps its minimum.
    const ConstraintSet prefill = ExportPhases::plan(capture, proposal, proposal).at(1).constraints;
    const QString prompt = dimOf(prefill, QStringLiteral("input_ids"), 1);
    QVERIFY(!prompt.isEmpty());
    QVERIFY(!prefill.dim(prompt)->min || *prefill.dim(prompt)->min >= 2);
}

void TstExportPhases::oneStructureIsOnePhaseWithTheGivenConstraints()
{
    Capture capture = test::makeCapture(QStringLiteral("x=2x3|x=4x3|x=5x3"));
    ConstraintSet given;
    QVERIFY(given.addRootDim(QStringLiteral("rows"), 2, 64).isEmpty());
    QVERIFY(given.setLeaf(QStringLiteral("x"), {DimAssignment::named(QStringLiteral("rows")), DimAssignment::makeStatic()})
                .isEmpty());
    const QVector<ExportPhases::PlannedPhase> phases = ExportPhases::plan(capture, given, proposalFor(capture));
    QCOMPARE(phases.size(), 1);
    QVERIFY(phases.first().calls.isEmpty()); // every call
    QCOMPARE(phases.first().description, QStringLiteral("every call"));
    QVERIFY(phases.first().constraints == given);
}

void TstExportPhases::aCallOfTheGeneralShapeTriesOneProgramFirst()
{
    // The demo's capture: a second turn with 3 new tokens over a cache of 8 has every
    // varying dim >= 2; a program traced from it serves the prefill and decode calls too.
    const Capture capture = test::makeCapture(
        QStringLiteral("ids=2x5:i64 past=2x0|ids=2x1:i64 past=2x5|ids=2x1:i64 past=2x6|ids=2x3:i64 past=2x8"));
    const ConstraintSet proposal = proposalFor(capture);
    const QVector<ExportPhases::PlannedPhase> phases = ExportPhases::plan(capture, proposal, proposal);
    QCOMPARE(phases.size(), 1);
    QVERIFY(phases.first().calls.isEmpty());
    // Without that call: prefill and decode phases.
    const Capture split = ExportPhases::subset(capture, {0, 1, 2});
    QCOMPARE(ExportPhases::plan(split, proposalFor(split), proposalFor(split)).size(), 2);
}

void TstExportPhases::userEditsSurviveInEveryPhase()
{
    const Capture capture = generateCapture();
    const ConstraintSet proposal = proposalFor(capture);
    ConstraintSet edited = proposal;
    const QString batch = dimOf(proposal, QStringLiteral("input_ids"), 0);
    const QString past = dimOf(proposal, QStringLiteral("past_key_values.key_cache[0]"), 2);
    QVERIFY(!batch.isEmpty() && !past.isEmpty());
    QVERIFY(edited.setRange(batch, 1, 64).isEmpty()); // the user's edit
    const QVector<ExportPhases::PlannedPhase> phases = ExportPhases::plan(capture, edited, proposal);
    QCOMPARE(phases.size(), 2);
    for (const ExportPhases::PlannedPhase &p : phases) {
        const DimDecl *b = p.constraints.dim(batch);
        QVERIFY2(b && b->min == 1 && b->max == 64, qPrintable(p.source));
        QVERIFY(p.source.startsWith(QLatin1String("the user's constraints")));
    }
    // Decode: nothing sits at 0 or 1 but input_ids' auto dim; the user's set as is.
    QVERIFY(phases.at(0).constraints == edited);
    // Prefill: the cache length is 0 in each of its calls, so static there, and said so.
    QVERIFY(!phases.at(1).constraints.dim(past));
    QVERIFY(dimOf(phases.at(1).constraints, QStringLiteral("past_key_values.key_cache[0]"), 2).isEmpty());
    QVERIFY2(phases.at(1).source.contains(past + QStringLiteral(" static (0 in every call)")),
             qPrintable(phases.at(1).source));
}

void TstExportPhases::derivedRelationNeedsEveryCallAndTwoValues()
{
    const Capture capture = generateCapture();
    const ConstraintSet proposal = proposalFor(capture);
    const QString total = dimOf(proposal, QStringLiteral("attention_mask"), 1);
    const QString past = dimOf(proposal, QStringLiteral("past_key_values.key_cache[0]"), 2);
    // Over every call (prefill: total = prompt, past = 0) no relation holds.
    QVERIFY(!ExportPhases::derivedRelation(capture, proposal, total));
    const std::optional<DimDecl> decode
        = ExportPhases::derivedRelation(ExportPhases::subset(capture, {1, 2, 3, 5, 6, 7}), proposal, total);
    QVERIFY(decode);
    QCOMPARE(decode->root, past);
    QCOMPARE(decode->relationText(), past + QStringLiteral(" + 1"));
    // One decode call: past_len has one value, which proves nothing.
    QVERIFY(!ExportPhases::derivedRelation(ExportPhases::subset(capture, {2}), proposal, total));
    // A Dim that is not in the set has no relation.
    QVERIFY(!ExportPhases::derivedRelation(capture, proposal, QStringLiteral("nosuchdim")));
}

// Issue 24 item 2: generate() at batch 1 (a 5-token prompt), then at batch 3 (8 tokens).
// The batch Dim is declared from 1, so a call at batch 1 needs no program of its own:
// two phases (decode, prefill), not four, and the prefill keeps its prompt length a Dim
// (with a program per batch each prefill had one prompt length, a constant).
void TstExportPhases::aBatchOfOneSharesItsPhaseWithLargerBatches()
{
    const Capture capture = generateCapture({1, 3});
    const ConstraintSet proposal = proposalFor(capture);
    const QString batch = dimOf(proposal, QStringLiteral("input_ids"), 0);
    QVERIFY(!batch.isEmpty());
    QCOMPARE(proposal.dim(batch)->min, std::optional<qint64>(1));
    const QVector<ExportPhases::PlannedPhase> phases = ExportPhases::plan(capture, proposal, proposal);
    QCOMPARE(phases.size(), 2);
    QCOMPARE(phases.at(0).calls, (QVector<int>{1, 2, 3, 5, 6, 7}));
    QCOMPARE(phases.at(1).calls, (QVector<int>{0, 4}));
    const ConstraintSet &prefill = phases.at(1).constraints;
    QVERIFY(!dimOf(prefill, QStringLiteral("input_ids"), 1).isEmpty()); // 5 and 8: a Dim
    const QString prefillBatch = dimOf(prefill, QStringLiteral("input_ids"), 0);
    QVERIFY(!prefillBatch.isEmpty());
    QCOMPARE(prefill.dim(prefillBatch)->min, std::optional<qint64>(1));
    // A user who declares the batch from 2 keeps the batch-1 calls apart.
    ConstraintSet fromTwo = proposal;
    QVERIFY(fromTwo.setRange(batch, 2, std::nullopt).isEmpty());
    QCOMPARE(ExportPhases::plan(capture, fromTwo, proposal).size(), 4);
}

// Issue 24 item 2: one generate() (an 8-token prompt, 4 steps). The prefill phase has
// one call, where the prompt length is 8, but it varies over the capture (the mask is
// 9..11 long in decode): the prefill program keeps one Dim from 2 for the prompt's and
// the mask's length (equal there), instead of serving 8-token prompts only.
void TstExportPhases::aPrefillRecordedOnceKeepsItsPromptLengthADim()
{
    const Capture capture = generateCapture({2, 2}, {8});
    const ConstraintSet proposal = proposalFor(capture);
    const QVector<ExportPhases::PlannedPhase> phases = ExportPhases::plan(capture, proposal, proposal);
    QCOMPARE(phases.size(), 2);
    QCOMPARE(phases.at(1).calls, (QVector<int>{0}));
    const ConstraintSet &prefill = phases.at(1).constraints;
    QVERIFY(prefill.checkInvariants().isEmpty());
    const QString prompt = dimOf(prefill, QStringLiteral("input_ids"), 1);
    QVERIFY2(!prompt.isEmpty(), qPrintable(phases.at(1).source));
    QCOMPARE(dimOf(prefill, QStringLiteral("attention_mask"), 1), prompt);
    QCOMPARE(prefill.dim(prompt)->min, std::optional<qint64>(2));
    QVERIFY2(phases.at(1).source.contains(QLatin1String("kept a Dim from 2")), qPrintable(phases.at(1).source));
    // The cache's head dim (8, as the prompt) never varies: still static.
    QVERIFY(dimOf(prefill, QStringLiteral("past_key_values.key_cache[0]"), 3).isEmpty());
    QVERIFY(dimOf(prefill, QStringLiteral("past_key_values.key_cache[0]"), 2).isEmpty()); // 0: static
}

// Issue 20: LLaVA recorded as the InputObserver documentation shows, value_if_missing
// {"pixel_values": zeros(0, 3, 16, 16)}: the decode calls carry 0 images they never
// passed. Their phase is planned, described and inferred without pixel_values (fed to
// the model, the vision tower ran on 0 images and the decode export failed); the
// prefill phase keeps its real images.
void TstExportPhases::substitutedImagesAreLeftOutOfTheDecodePhase()
{
    QStringList text;
    for (int prompt : {5, 8}) {
        for (int step = 0; step < 4; ++step) {
            const int seq = step == 0 ? prompt : 1, past = step == 0 ? 0 : prompt + step - 1;
            const QString images = step == 0 ? QStringLiteral("2x3x16x16") : QStringLiteral("0x3x16x16*");
            text << QStringLiteral("input_ids=2x%1:i64 pixel_values=%2 attention_mask=2x%3:i64 past_key_values=cache(2:2x2x%4x8)")
                        .arg(seq)
                        .arg(images)
                        .arg(past + seq)
                        .arg(past);
        }
    }
    const Capture capture = test::makeCapture(text.join(QLatin1Char('|')));
    QCOMPARE(capture.calls.at(1).filled, QStringList{QStringLiteral("pixel_values")});
    QCOMPARE(SubstitutedInputs::commonTo(capture, {1, 2, 3, 5, 6, 7}), QStringList{QStringLiteral("pixel_values")});
    QVERIFY(SubstitutedInputs::commonTo(capture, {0, 4}).isEmpty());
    QVERIFY(SubstitutedInputs::commonTo(capture).isEmpty()); // the prefill passed it

    const ConstraintSet proposal = proposalFor(capture);
    const QVector<ExportPhases::PlannedPhase> phases = ExportPhases::plan(capture, proposal, proposal);
    QCOMPARE(phases.size(), 2);
    QCOMPARE(phases.at(0).calls, (QVector<int>{1, 2, 3, 5, 6, 7}));
    QVERIFY2(phases.at(0).error.isEmpty(), qPrintable(phases.at(0).error));
    // Described without the images, and not by their size there.
    QVERIFY2(phases.at(0).description.endsWith(QLatin1String("without pixel_values")), qPrintable(phases.at(0).description));
    QVERIFY2(!phases.at(0).description.contains(QLatin1String("pixel_values dim")), qPrintable(phases.at(0).description));
    // Its constraints know no pixel_values; the decode relation holds as without images.
    const ConstraintSet &decode = phases.at(0).constraints;
    for (const LeafConstraint &leaf : decode.leaves())
        QVERIFY2(!leaf.path.startsWith(QLatin1String("pixel_values")), qPrintable(leaf.path));
    const DimDecl *mask = decode.dim(dimOf(decode, QStringLiteral("attention_mask"), 1));
    QVERIFY(mask && mask->isDerived());
    // The prefill keeps its images.
    QVERIFY(phases.at(1).constraints.leaf(QStringLiteral("pixel_values")));
    QVERIFY(!phases.at(1).description.contains(QLatin1String("without")));

    // The decode calls as exported: pixel_values out of the inputs, back among the
    // missing, every other leaf as recorded (its node and tree intact).
    const Capture calls = SubstitutedInputs::without(ExportPhases::subset(capture, phases.at(0).calls),
                                                     SubstitutedInputs::commonTo(capture, phases.at(0).calls));
    for (const CapturedCall &call : calls.calls) {
        QVERIFY(call.filled.isEmpty());
        QVERIFY(call.missing.contains(QStringLiteral("pixel_values")));
        const TreeNode &root = call.inputs.nodes.at(call.inputs.root);
        QCOMPARE(root.keys, (QStringList{QStringLiteral("input_ids"), QStringLiteral("attention_mask"),
                                         QStringLiteral("past_key_values")}));
        QCOMPARE(call.inputs.leaves.size(), 2 + 4); // ids, mask, 2 layers x key and value
        for (int i = 0; i < call.inputs.leaves.size(); ++i) {
            const Leaf &leaf = call.inputs.leaves.at(i);
            QVERIFY(!leaf.path.startsWith(QLatin1String("pixel_values")));
            QCOMPARE(call.inputs.nodes.at(leaf.node).leaf, i);
        }
        QCOMPARE(call.inputs.leaves.at(2).path, QStringLiteral("past_key_values.key_cache[0]"));
    }
    // A call that passed the input keeps it.
    QCOMPARE(SubstitutedInputs::without(capture, {QStringLiteral("pixel_values")}).calls.at(0).inputs.leaves.at(1).path,
             QStringLiteral("pixel_values"));
}

// A substitute the same size as what other calls passed (zeros(1, 3, H, W) beside one
// real image) still puts its calls apart: their program is exported without it.
void TstExportPhases::aSubstituteOfTheSameSizeClassIsAPhaseOfItsOwn()
{
    const Capture capture = test::makeCapture(
        QStringLiteral("ids=2x5 img=1x3x4x4|ids=2x1 img=1x3x4x4*|ids=2x6 img=1x3x4x4|ids=2x1 img=1x3x4x4*"));
    QCOMPARE(ExportPhases::split(capture, {0, 1, 2, 3}), (QVector<QVector<int>>{{0, 2}, {1, 3}}));
    QCOMPARE(ExportPhases::describe(capture, {1, 3}), QStringLiteral("ids dim 1 = 1, without img"));
}

// The demo's pattern: an empty cache recorded from value_if_missing in the prefill, a
// later call with every varying size >= 2. One program is tried for every call first,
// the substitute included (the model accepts an empty cache; verification checks it).
void TstExportPhases::aSubstituteBesideCallsThatPassedItStaysInTheirProgram()
{
    const Capture capture = test::makeCapture(
        QStringLiteral("ids=2x5 cache=2x0*|ids=2x1 cache=2x5|ids=2x3 cache=2x6"));
    const ConstraintSet proposal = proposalFor(capture);
    const QVector<ExportPhases::PlannedPhase> phases = ExportPhases::plan(capture, proposal, proposal);
    QCOMPARE(phases.size(), 1);
    QVERIFY(phases.first().calls.isEmpty());
    QVERIFY(SubstitutedInputs::commonTo(capture).isEmpty());
    QVERIFY(phases.first().constraints.leaf(QStringLiteral("cache")));
}

DIMSCOPE_GUILESS_TEST_MAIN(TstExportPhases)
#include "tst_exportphases.moc"
