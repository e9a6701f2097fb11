// SPDX-License-Identifier: GPL-3.0-or-later
// ProgramNarrowing (issue 24 item 2): the warning for a program whose constraints the
// fix loop left narrower than those its export started from, in the cases the real
// models gave: LLaVA's image count specialized by `list(image_features)`
// (modeling_llava.py:186), Mistral's decode mask raised to torch's minimum 3, OpenAI
// GPT's prompt length capped at 255.
#include "capturebuilder.h"
#include "constraints/constraintset.h"
#include "export/programnarrowing.h"
#include "inference/shapetable.h"

#include "deterministictestmain.h"

using namespace dimscope;

namespace {

DimAssignment n(const char *name)
{
    return DimAssignment::named(QString::fromLatin1(name));
}

const DimAssignment S = DimAssignment::makeStatic();

// LLaVA's prefill phase: two calls at batch 2 with an image each.
Capture prefill()
{
    return test::makeCapture(QStringLiteral("input_ids=2x10:i64 pixel_values=2x3x16x16:f32 attention_mask=2x10:i64|"
                                            "input_ids=2x13:i64 pixel_values=2x3x16x16:f32 attention_mask=2x13:i64"));
}

ConstraintSet prefillAsked()
{
    ConstraintSet set;
    set.addRootDim(QStringLiteral("batch"), 2);
    set.addRootDim(QStringLiteral("seq_len"), 2);
    set.setLeaf(QStringLiteral("input_ids"), {n("batch"), n("seq_len")});
    set.setLeaf(QStringLiteral("pixel_values"), {n("batch"), S, S, S});
    set.setLeaf(QStringLiteral("attention_mask"), {n("batch"), n("seq_len")});
    return set;
}

} // namespace

class TestProgramNarrowing : public QObject
{
    Q_OBJECT
private slots:
    void unchangedConstraintsAreNotNarrower()
    {
        QCOMPARE(ProgramNarrowing::find(prefillAsked(), prefillAsked(), ShapeTable(prefill())), QStringList());
    }

    // The fix loop split batch per input and specialized the image count: calls with
    // another number of images are served by no program, and the CLI says so.
    void aSpecializedDimensionIsNamedWithItsSizeAndWhatWasAsked()
    {
        ConstraintSet got = prefillAsked();
        QVERIFY(got.makeStatic(QStringLiteral("pixel_values"), 0).isEmpty());
        QCOMPARE(ProgramNarrowing::find(prefillAsked(), got, ShapeTable(prefill())),
                 QStringList{QStringLiteral("pixel_values dim 0 is 2 only (asked: batch [2, oo])")});
    }

    // Mamba's prefill: `for i in range(seq_len)` specializes the prompt length in every
    // input that has it; one line for the Dim, with the size of the program's one call.
    void theLeavesOfOneDimAreOneLine()
    {
        ConstraintSet got = prefillAsked();
        QVERIFY(got.specializeDim(QStringLiteral("seq_len")).isEmpty());
        const Capture first = test::makeCapture(
            QStringLiteral("input_ids=2x10:i64 pixel_values=2x3x16x16:f32 attention_mask=2x10:i64"));
        QCOMPARE(ProgramNarrowing::find(prefillAsked(), got, ShapeTable(first)),
                 QStringList{QStringLiteral("input_ids dim 1, attention_mask dim 1 are 10 only (asked: seq_len [2, oo])")});
    }

    // torch's suggested minimum (Mistral's decode: total_len >= 3 where 2 was asked), and
    // a maximum from a guard (OpenAI GPT: seq_len <= 255), once per Dim.
    void aCutRangeIsNamedOnceWithBothRanges()
    {
        ConstraintSet got = prefillAsked();
        QVERIFY(got.setRange(QStringLiteral("seq_len"), 3, 255).isEmpty());
        QCOMPARE(ProgramNarrowing::find(prefillAsked(), got, ShapeTable(prefill())),
                 QStringList{QStringLiteral("seq_len [3, 255] (asked: seq_len [2, oo])")});
    }

    // A relation every call has (total_len = past_len + 1 instead of torch's minimum)
    // is not a narrowing of the range, and neither is a range torch widened.
    void aRelationOrAWiderRangeIsNotReported()
    {
        const Capture decode = test::makeCapture(QStringLiteral("input_ids=2x1:i64 attention_mask=2x6:i64 past=2x5:f32|"
                                                                "input_ids=2x1:i64 attention_mask=2x7:i64 past=2x6:f32"));
        ConstraintSet asked;
        asked.addRootDim(QStringLiteral("past_len"), 1);
        asked.addRootDim(QStringLiteral("total_len"), 2);
        asked.setLeaf(QStringLiteral("attention_mask"), {S, n("total_len")});
        asked.setLeaf(QStringLiteral("past"), {S, n("past_len")});
        ConstraintSet got = asked;
        QVERIFY(got.makeDerived(QStringLiteral("total_len"), QStringLiteral("past_len"), 1, 1).isEmpty());
        QVERIFY(got.setRange(QStringLiteral("past_len"), 0, std::nullopt).isEmpty());
        QCOMPARE(ProgramNarrowing::find(asked, got, ShapeTable(decode)), QStringList());
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestProgramNarrowing)
#include "tst_programnarrowing.moc"
