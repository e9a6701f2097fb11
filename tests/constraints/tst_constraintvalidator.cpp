// SPDX-License-Identifier: GPL-3.0-or-later
#include "capturebuilder.h"
#include "constraints/constraintvalidator.h"
#include "inference/shapeinference.h"

#include "deterministictestmain.h"

using namespace dimscope;
using namespace dimscope::test;

class TestConstraintValidator : public QObject
{
    Q_OBJECT
private slots:
    void inferredSetIsValid_data();
    void inferredSetIsValid();
    void violations_data();
    void violations();
    void cap();
};

void TestConstraintValidator::inferredSetIsValid_data()
{
    QTest::addColumn<QString>("capture");
    QTest::newRow("add") << "x=5x6 y=1x6 | x=7x8 y=1x8";
    QTest::newRow("llm") << "input_ids=2x3 past_key_values=- | input_ids=2x1 past_key_values=cache(2:2x4x3x8) | "
                            "input_ids=2x1 past_key_values=cache(2:2x4x4x8)";
    QTest::newRow("derived") << "x=3 y=7 | x=4 y=9 | x=6 y=13";
}

// Whatever inference proposes holds on the calls it came from.
void TestConstraintValidator::inferredSetIsValid()
{
    QFETCH(QString, capture);
    const Capture cap = makeCapture(capture);
    const InferenceResult r = ShapeInference::infer(cap);
    const ValidationReport report = ConstraintValidator(r.table).validate(r.constraints);
    QVERIFY2(report.ok(), report.violations.isEmpty() ? "" : qPrintable(report.violations.first().message));
}

using Rule = ConstraintViolation::Rule;

void TestConstraintValidator::violations_data()
{
    QTest::addColumn<QString>("capture");
    QTest::addColumn<QString>("edit"); // applied to the inferred set
    QTest::addColumn<int>("rule");
    QTest::addColumn<int>("call");
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("dim");
    QTest::addColumn<qint64>("observed");
    QTest::addColumn<QString>("message");
    QTest::newRow("range max") << "x=5x6 | x=7x6" << "max batch 6" << int(Rule::Range) << 1 << "x" << 0 << qint64(7)
                               << "call 1, x dim 0 = 7: outside the range [2, 6] of Dim 'batch'";
    QTest::newRow("range min") << "x=5x6 | x=7x6" << "min batch 6" << int(Rule::Range) << 0 << "x" << 0 << qint64(5)
                               << "call 0, x dim 0 = 5: outside the range [6, ∞] of Dim 'batch'";
    QTest::newRow("static") << "x=5x6 y=2 | x=7x6 y=3" << "static y 0" << int(Rule::StaticValue) << 1 << "y" << 0 << qint64(3)
                            << "call 1, y dim 0 = 3: static, but 2 in call 0";
    QTest::newRow("shared") << "x=5x6 y=2 | x=7x6 y=3" << "merge batch y_dim0" << int(Rule::SharedDim) << 0 << "y" << 0 << qint64(2)
                            << "call 0, y dim 0 = 2: Dim 'batch' is 5 there (x dim 0); all its dimensions must be equal";
    QTest::newRow("derived") << "x=5 y=6 | x=7 y=9" << "derive y_dim0 x_dim0 1 1" << int(Rule::DerivedRelation) << 1 << "y" << 0
                             << qint64(9) << "call 1, y dim 0 = 9 (Dim 'y_dim0' = x_dim0 + 1) needs 'x_dim0' = 8, but x dim 0 = 7 makes it 7";
    // The derived leaf comes first and sets the root's value: still the derived Dim's
    // leaf is marked, not the root's (whose dimension is as captured).
    QTest::newRow("derived before its root") << "y=6 x=5 | y=9 x=7" << "derive y_dim0 x_dim0 1 1" << int(Rule::DerivedRelation) << 1
                                             << "y" << 0 << qint64(9)
                                             << "call 1, y dim 0 = 9 (Dim 'y_dim0' = x_dim0 + 1) needs 'x_dim0' = 8, but x dim 0 = 7 makes it 7";
    QTest::newRow("derived not integral") << "x=5 y=6 | x=7 y=9" << "derive y_dim0 x_dim0 2 -4" << int(Rule::DerivedRelation) << 1
                                          << "y" << 0 << qint64(9)
                                          << "call 1, y dim 0 = 9: Dim 'y_dim0' = 2*x_dim0 - 4 cannot be 9 for any size of 'x_dim0'";
    QTest::newRow("derived range") << "x=5 y=6 | x=7 y=9" << "derive y_dim0 x_dim0 1 -3" << int(Rule::DerivedRange) << -1 << ""
                                   << -1 << qint64(-1)
                                   << "derived Dim 'y_dim0' = x_dim0 - 3 goes below 0 for x_dim0 = 2 (the min of 'x_dim0'): torch.export "
                                      "rejects it; set the min of 'x_dim0' to at least 3";
    QTest::newRow("rank") << "x=5x6 | x=7x6" << "rank x" << int(Rule::Rank) << 0 << "x" << -1 << qint64(2)
                          << "x has rank 2 in the capture but the constraint set gives it 3 dimension(s)";
    QTest::newRow("unknown leaf") << "x=5x6 | x=7x6" << "leaf nope" << int(Rule::UnknownLeaf) << -1 << "nope" << -1 << qint64(-1)
                                  << "'nope' is in the constraint set but no captured call has it as a tensor";
    QTest::newRow("structure") << "x=5x6 | x=7x6x2" << "" << int(Rule::Structure) << 1 << "x" << -1 << qint64(-1)
                               << "'x' changes rank between calls: a rank-2 tensor in call(s) 0; a rank-3 tensor in call(s) 1";
}

void TestConstraintValidator::violations()
{
    QFETCH(QString, capture);
    QFETCH(QString, edit);
    QFETCH(int, rule);
    QFETCH(int, call);
    QFETCH(QString, path);
    QFETCH(int, dim);
    QFETCH(qint64, observed);
    QFETCH(QString, message);
    const InferenceResult r = ShapeInference::infer(makeCapture(capture));
    ConstraintSet s = r.constraints;
    const QStringList e = edit.split(QLatin1Char(' '));
    QString err;
    if (e[0] == QLatin1String("max"))
        err = s.setRange(e[1], 2, e[2].toLongLong());
    else if (e[0] == QLatin1String("min"))
        err = s.setRange(e[1], e[2].toLongLong(), std::nullopt);
    else if (e[0] == QLatin1String("static"))
        err = s.makeStatic(e[1], e[2].toInt());
    else if (e[0] == QLatin1String("merge"))
        err = s.mergeDims(e[1], e[2]);
    else if (e[0] == QLatin1String("derive"))
        err = s.makeDerived(e[1], e[2], e[3].toLongLong(), e[4].toLongLong());
    else if (e[0] == QLatin1String("rank"))
        err = s.setLeaf(e[1], {DimAssignment::makeStatic(), DimAssignment::makeStatic(), DimAssignment::makeStatic()});
    else if (e[0] == QLatin1String("leaf"))
        err = s.setLeaf(e[1], {DimAssignment::makeDynamic()});
    QCOMPARE(err, QString());
    const ValidationReport report = ConstraintValidator(r.table).validate(s);
    QCOMPARE(report.total, report.violations.size());
    QVERIFY(!report.ok());
    const ConstraintViolation &v = report.violations.first();
    QCOMPARE(v.message, message);
    QCOMPARE(int(v.rule), rule);
    QCOMPARE(v.call, call);
    QCOMPARE(v.path, path);
    QCOMPARE(v.dim, dim);
    QCOMPARE(v.observed, observed);
}

void TestConstraintValidator::cap()
{
    // 10 calls with a changing size marked static: 9 violations, 3 kept.
    QStringList calls;
    for (int i = 0; i < 10; ++i)
        calls << QStringLiteral("x=%1").arg(i + 2);
    const InferenceResult r = ShapeInference::infer(makeCapture(calls.join(QLatin1Char('|'))));
    ConstraintSet s = r.constraints;
    QCOMPARE(s.makeStatic(QStringLiteral("x"), 0), QString());
    const ValidationReport report = ConstraintValidator(r.table).validate(s, 3);
    QCOMPARE(report.total, 9);
    QCOMPARE(report.violations.size(), 3);
    QCOMPARE(report.violations.last().call, 3);
}

DIMSCOPE_GUILESS_TEST_MAIN(TestConstraintValidator)
#include "tst_constraintvalidator.moc"
