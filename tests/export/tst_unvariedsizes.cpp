// SPDX-License-Identifier: GPL-3.0-or-later
// UnvariedSizes (issue 27, the held-out check): the sizes a program takes only as
// recorded because no recorded call varied them, as Gemma2's static cache gave them:
// its sliding layer's mask and keys are as long as the window (8) in every call.
#include "capturebuilder.h"
#include "constraints/constraintset.h"
#include "export/unvariedsizes.h"
#include "inference/shapetable.h"

#include "deterministictestmain.h"

using namespace dimscope;

namespace {

DimAssignment n(const char *name)
{
    return DimAssignment::named(QString::fromLatin1(name));
}

const DimAssignment S = DimAssignment::makeStatic();

const QString kMask = QStringLiteral("attention_mask['sliding_attention']");
const QString kSliding = QStringLiteral("past_key_values.key_cache[0]");
const QString kFull = QStringLiteral("past_key_values.key_cache[1]");

// A prefill and a decode step: the prompt and the full layer vary, the sliding layer's
// mask and keys are 8 in both.
Capture recorded()
{
    return test::makeCapture(QStringLiteral("input_ids=2x5:i64 %1=2x1x5x8:bool %2=2x2x8x8 %3=2x2x9x8|"
                                            "input_ids=2x1:i64 %1=2x1x1x8:bool %2=2x2x8x8 %3=2x2x9x8|"
                                            "input_ids=2x1:i64 %1=2x1x1x8:bool %2=2x2x8x8 %3=2x2x12x8")
                                 .arg(kMask, kSliding, kFull));
}

ConstraintSet exported()
{
    ConstraintSet set;
    set.addRootDim(QStringLiteral("batch"), 1);
    set.addRootDim(QStringLiteral("seq_len"), 1);
    set.addRootDim(QStringLiteral("past_len"), 2);
    set.setLeaf(QStringLiteral("input_ids"), {n("batch"), n("seq_len")});
    set.setLeaf(kMask, {n("batch"), S, n("seq_len"), S});
    set.setLeaf(kSliding, {n("batch"), S, S, S});
    set.setLeaf(kFull, {n("batch"), S, n("past_len"), S});
    return set;
}

} // namespace

class TestUnvariedSizes : public QObject
{
    Q_OBJECT
private slots:
    // The lengths that never varied are named with their size and the guard; the heads
    // (2) and the head size (8) are the model's, not a call's, and are not.
    void lengthsOneSizeInEveryRecordedCallAreNamed()
    {
        QCOMPARE(UnvariedSizes::find(exported(), ShapeTable(recorded())),
                 QStringList{QStringLiteral(
                     "attention_mask['sliding_attention'] dim 3, past_key_values.key_cache[0] dim 2 are 8 in every "
                     "recorded call, so the program takes 8 only (guard attention_mask['sliding_attention'].shape[3] "
                     "== 8): a call with another size is rejected; record calls where they differ to make them a Dim")});
    }

    // A length static in the program but varied by the recording (another phase's
    // prompt, say) is the phase's business, not this warning's.
    void aStaticLengthTheRecordingVariedIsNotNamed()
    {
        ConstraintSet set = exported();
        set.setLeaf(kMask, {n("batch"), S, S, n("past_len")});
        set.setLeaf(kSliding, {n("batch"), S, n("past_len"), S});
        set.setLeaf(QStringLiteral("input_ids"), {n("batch"), S});
        QCOMPARE(UnvariedSizes::find(set, ShapeTable(recorded())), QStringList());
    }

    void oneDimIsNamedInTheSingular()
    {
        ConstraintSet set = exported();
        set.setLeaf(kSliding, {n("batch"), S, n("past_len"), S});
        const QStringList lines = UnvariedSizes::find(set, ShapeTable(recorded()));
        QCOMPARE(lines.size(), 1);
        QVERIFY2(lines.first().startsWith(QStringLiteral("attention_mask['sliding_attention'] dim 3 is 8 in every")),
                 qPrintable(lines.first()));
        QVERIFY2(lines.first().endsWith(QStringLiteral("record calls where it differs to make it a Dim")),
                 qPrintable(lines.first()));
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestUnvariedSizes)
#include "tst_unvariedsizes.moc"
