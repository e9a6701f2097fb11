// SPDX-License-Identifier: GPL-3.0-or-later
// DimsSeenApart: the continuation program's constraints, inferred from a few short
// synthesized calls, keep apart the cache lengths the recording shows apart (Gemma2:
// its sliding-window layer holds at most the window, its full-attention layer grows).
#include "capturebuilder.h"
#include "constraints/constraintset.h"
#include "export/dimsseenapart.h"
#include "inference/shapetable.h"

#include "deterministictestmain.h"

using namespace dimscope;

namespace {

DimAssignment n(const char *name)
{
    return DimAssignment::named(QString::fromLatin1(name));
}

const DimAssignment S = DimAssignment::makeStatic();

// What inference gives for synthesized calls on a cache shorter than the window: both
// layers' lengths are past_len.
ConstraintSet continuation()
{
    ConstraintSet set;
    set.addRootDim(QStringLiteral("batch"), 1);
    set.addRootDim(QStringLiteral("past_len"), 2);
    set.setLeaf(QStringLiteral("input_ids"), {n("batch"), S});
    set.setLeaf(QStringLiteral("sliding"), {n("batch"), n("past_len")});
    set.setLeaf(QStringLiteral("full"), {n("batch"), n("past_len")});
    return set;
}

} // namespace

class TestDimsSeenApart : public QObject
{
    Q_OBJECT
private slots:
    void dimsTheRecordingShowsApartGetADimEach()
    {
        // Decode steps of a window of 7: the sliding layer stops at 7, the full one grows.
        const Capture recorded = test::makeCapture(QStringLiteral("input_ids=2x1:i64 sliding=2x6 full=2x6|"
                                                                  "input_ids=2x1:i64 sliding=2x7 full=2x7|"
                                                                  "input_ids=2x1:i64 sliding=2x7 full=2x8"));
        ConstraintSet set = continuation();
        const QStringList notes = DimsSeenApart::split(&set, ShapeTable(recorded));
        QCOMPARE(notes, QStringList{QStringLiteral("full dim 1 gets its own Dim full_dim1 (apart from past_len in recorded call 2)")});
        QCOMPARE(set.assignment(QStringLiteral("sliding"), 1), n("past_len"));
        QCOMPARE(set.assignment(QStringLiteral("full"), 1), n("full_dim1"));
        QCOMPARE(set.dim(QStringLiteral("full_dim1"))->min, std::optional<qint64>(2));
        // batch is equal everywhere: one Dim still
        QCOMPARE(set.assignment(QStringLiteral("full"), 0), n("batch"));
        QVERIFY(set.checkInvariants().isEmpty());
    }

    void aDimApartTakesItsRolesNameWhenFree()
    {
        // Mistral (every layer sliding, window 8): the count of tokens seen equals the
        // cache's length below the window and grows past it (issue 27 item 4).
        const QString key = QStringLiteral("past_key_values.key_cache[0]");
        const QString seen = QStringLiteral("past_key_values.tokens_seen[0]");
        const Capture recorded = test::makeCapture(QStringLiteral("%1=2x2x6x8 %2=6:u8|%1=2x2x7x8 %2=9:u8").arg(key, seen));
        ConstraintSet set;
        set.addRootDim(QStringLiteral("batch"), 1);
        set.addRootDim(QStringLiteral("past_len"), 2);
        set.setLeaf(key, {n("batch"), S, n("past_len"), S});
        set.setLeaf(seen, {n("past_len")});
        const QStringList notes = DimsSeenApart::split(&set, ShapeTable(recorded));
        QCOMPARE(notes, QStringList{QStringLiteral("%1 dim 0 gets its own Dim tokens_seen (apart from past_len in recorded "
                                                   "call 1)").arg(seen)});
        QCOMPARE(set.assignment(seen, 0), n("tokens_seen"));
        QVERIFY(set.checkInvariants().isEmpty());
    }

    void dimsEqualInEveryRecordedCallStayOneDim()
    {
        const Capture recorded = test::makeCapture(QStringLiteral("input_ids=2x1:i64 sliding=2x6 full=2x6|"
                                                                  "input_ids=2x1:i64 sliding=2x7 full=2x7"));
        ConstraintSet set = continuation();
        QCOMPARE(DimsSeenApart::split(&set, ShapeTable(recorded)), QStringList());
        QCOMPARE(set, continuation());
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestDimsSeenApart)
#include "tst_dimsseenapart.moc"
