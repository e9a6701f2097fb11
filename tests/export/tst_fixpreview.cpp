// SPDX-License-Identifier: GPL-3.0-or-later
// FixPreview: what each of torch's suggested fixes would do to the captured calls, and
// the shape decision behind it, before the user applies it.
#include "export/fixpreview.h"

#include "capturebuilder.h"
#include "deterministictestmain.h"
#include "constraints/constraintset.h"
#include "constraints/constraintvalidator.h"
#include "inference/shapetable.h"

#include <QJsonArray>
#include <QJsonDocument>

using namespace dimscope;

namespace {

QString s(const char *text) { return QString::fromLatin1(text); }

// A decode loop seen from its first call: the cache grows 0, 3, 4; every call has one
// new token of width 8.
Capture decodeCapture()
{
    return test::makeCapture(s("x=1x1x8 past=1x0x8 | x=1x1x8 past=1x3x8 | x=1x1x8 past=1x4x8"));
}

ConstraintSet userConstraints()
{
    ConstraintSet set;
    set.addRootDim(s("past_len"));
    set.addRootDim(s("width"));
    set.setLeaf(s("x"), {DimAssignment::makeStatic(), DimAssignment::makeStatic(), DimAssignment::named(s("width"))});
    set.setLeaf(s("past"), {DimAssignment::makeStatic(), DimAssignment::named(s("past_len")),
                            DimAssignment::named(s("width"))});
    return set;
}

QVector<ShapeExplanation> explanations()
{
    const char json[] = R"json([
      {"kind": "specialized", "expression": "past_len == 0", "dims": ["past_len"], "value": 0,
       "location": null, "stack": []},
      {"kind": "specialized", "expression": "width == 8", "dims": ["width"], "value": 8,
       "location": {"file": "/src/model.py", "line": 12, "function": "forward", "code": "h = x.view(-1, 8)"},
       "stack": []}
    ])json";
    return ShapeExplanation::listFromJson(QJsonDocument::fromJson(json).array());
}

} // namespace

class TestFixPreview : public QObject
{
    Q_OBJECT
private slots:
    void specializingAGrowingLengthBreaksTheOtherCalls()
    {
        const Capture capture = decodeCapture();
        const ConstraintValidator validator{ShapeTable(capture)};
        const QVector<FixPreview> previews =
            FixPreview::make(userConstraints(), validator, {s("past_len = 0"), s("width = 8")}, explanations());
        QCOMPARE(previews.size(), 2);
        const FixPreview &past = previews.at(0);
        QCOMPARE(past.line, s("past_len = 0"));
        QVERIFY(past.problem.isEmpty());
        QCOMPARE(past.brokenCalls, (QVector<int>{1, 2}));
        QVERIFY2(past.warningText().startsWith(s("breaks 2 captured calls: 1-2 (")), qPrintable(past.warningText()));
        QCOMPARE(past.causeText(), s("specialized: past_len == 0 (at the inputs)"));
        // The width is 8 in every call: specializing it breaks nothing, and says why.
        const FixPreview &width = previews.at(1);
        QVERIFY(!width.breaksCalls());
        QVERIFY(width.warningText().isEmpty());
        QCOMPARE(width.causeText(), s("model.py:12: specialized: width == 8"));
    }

    void aNarrowedRangeBreaksTheCallsOutsideIt()
    {
        const ConstraintValidator validator{ShapeTable(decodeCapture())};
        const QVector<FixPreview> previews =
            FixPreview::make(userConstraints(), validator, {s("past_len = Dim('past_len', max=3)")}, {});
        QCOMPARE(previews.first().brokenCalls, QVector<int>{2});
        QVERIFY(previews.first().causeText().isEmpty());
    }

    void callsBrokenBeforeAreNotBlamedOnTheFix()
    {
        ConstraintSet set = userConstraints();
        QVERIFY(set.setRange(s("past_len"), std::nullopt, 3).isEmpty()); // call 2 already outside
        const ConstraintValidator validator{ShapeTable(decodeCapture())};
        const QVector<FixPreview> previews = FixPreview::make(set, validator, {s("past_len = 0")}, {});
        QCOMPARE(previews.first().brokenCalls, QVector<int>{1});
    }

    void aFixThatCannotApplySaysWhy()
    {
        const ConstraintValidator validator{ShapeTable(decodeCapture())};
        const QVector<FixPreview> previews =
            FixPreview::make(userConstraints(), validator, {s("nothing = 3"), s("this is not a fix")}, {});
        QVERIFY(previews.at(0).problem.contains(s("nothing")));
        QVERIFY(previews.at(0).warningText().startsWith(s("cannot be applied: ")));
        QCOMPARE(previews.at(1).problem, s("not a fix dimscope understands"));
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestFixPreview)
#include "tst_fixpreview.moc"
