// SPDX-License-Identifier: GPL-3.0-or-later
#include "constraints/dimsplit.h"

#include "deterministictestmain.h"

using namespace dimscope;

namespace {

QString s(const char *text)
{
    return QString::fromLatin1(text);
}

DimAssignment named(const char *name)
{
    return DimAssignment::named(s(name));
}

// LLaVA's shape: the batch of the text inputs and the cache, and the number of images,
// equal in every call, so inferred as one Dim.
ConstraintSet llavaLike()
{
    ConstraintSet set;
    set.addRootDim(s("batch"), 1, 64);
    set.addRootDim(s("seq_len"));
    set.addDerivedDim(s("batch2"), s("batch"), 2, 0);
    set.setLeaf(s("input_ids"), {named("batch"), named("seq_len")});
    set.setLeaf(s("pixel_values"), {named("batch"), DimAssignment::makeStatic(), DimAssignment::makeStatic()});
    set.setLeaf(s("past_key_values.key_cache[0]"), {named("batch"), DimAssignment::makeStatic()});
    set.setLeaf(s("pixel_values_extra"), {named("batch2")});
    return set;
}

} // namespace

class TestDimSplit : public QObject
{
    Q_OBJECT
private slots:
    void topLevelInputIsThePathsFirstSegment()
    {
        QCOMPARE(DimSplit::topLevelInput(s("input_ids")), s("input_ids"));
        QCOMPARE(DimSplit::topLevelInput(s("past_key_values.key_cache[0]")), s("past_key_values"));
        QCOMPARE(DimSplit::topLevelInput(s("inputs['a'][1]")), s("inputs"));
    }

    void inputsUsingListsDirectUsesInLeafOrder()
    {
        const ConstraintSet set = llavaLike();
        QCOMPARE(DimSplit::inputsUsing(set, s("batch")),
                 QStringList({s("input_ids"), s("pixel_values"), s("past_key_values")}));
        QCOMPARE(DimSplit::inputsUsing(set, s("seq_len")), QStringList(s("input_ids")));
        QVERIFY(DimSplit::inputsUsing(set, s("nothing")).isEmpty());
    }

    void eachLaterInputGetsItsOwnDimWithTheSameRange()
    {
        ConstraintSet set = llavaLike();
        QString error;
        const QStringList created = DimSplit::splitByInput(&set, s("batch"), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(created, QStringList({s("batch_pixel_values"), s("batch_past_key_values")}));
        QCOMPARE(set.assignment(s("input_ids"), 0), named("batch"));
        QCOMPARE(set.assignment(s("pixel_values"), 0), named("batch_pixel_values"));
        QCOMPARE(set.assignment(s("past_key_values.key_cache[0]"), 0), named("batch_past_key_values"));
        QCOMPARE(set.dim(s("batch_pixel_values"))->min, std::optional<qint64>(1));
        QCOMPARE(set.dim(s("batch_pixel_values"))->max, std::optional<qint64>(64));
        // Uses through a derived Dim stay on the original root.
        QCOMPARE(set.assignment(s("pixel_values_extra"), 0), named("batch2"));
        QCOMPARE(set.dim(s("batch2"))->root, s("batch"));
        QVERIFY(set.checkInvariants().isEmpty());
        // Specializing the split-off Dim now leaves the batch symbolic.
        QVERIFY(set.specializeDim(s("batch_pixel_values")).isEmpty());
        QCOMPARE(set.assignment(s("input_ids"), 0), named("batch"));
        QVERIFY(set.assignment(s("pixel_values"), 0).isStatic());
    }

    void newNamesDoNotCollideWithExistingDims()
    {
        ConstraintSet set = llavaLike();
        set.addRootDim(s("batch_pixel_values"));
        QString error;
        const QStringList created = DimSplit::splitByInput(&set, s("batch"), &error);
        QVERIFY(error.isEmpty());
        QCOMPARE(created.first(), s("batch_pixel_values_2"));
        QCOMPARE(set.assignment(s("pixel_values"), 0), named("batch_pixel_values_2"));
    }

    void aDimOfOneInputIsNotSplit()
    {
        ConstraintSet set = llavaLike();
        const ConstraintSet before = set;
        QString error;
        QVERIFY(DimSplit::splitByInput(&set, s("seq_len"), &error).isEmpty());
        QVERIFY(error.isEmpty());
        QCOMPARE(set, before);
    }

    void derivedAndUnknownDimsAreRefused()
    {
        ConstraintSet set = llavaLike();
        const ConstraintSet before = set;
        QString error;
        QVERIFY(DimSplit::splitByInput(&set, s("batch2"), &error).isEmpty());
        QVERIFY(error.contains(s("derived")));
        error.clear();
        QVERIFY(DimSplit::splitByInput(&set, s("nope"), &error).isEmpty());
        QVERIFY(error.contains(s("nope")));
        QCOMPARE(set, before);
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestDimSplit)
#include "tst_dimsplit.moc"
