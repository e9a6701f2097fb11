// SPDX-License-Identifier: GPL-3.0-or-later
// DimIntent: what the constraints (or a dynamic_shapes spec) ask of each dimension of
// the example call, checked against the demo capture and project of resources/demo.
#include "capture/capturereader.h"
#include "export/dimintent.h"
#include "pt2/pt2dimmapper.h"
#include "project/projectfile.h"
#include "spec/jsonspecemitter.h"

#include <QJsonDocument>
#include "deterministictestmain.h"

using namespace dimscope;

class TstDimIntent : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void constraintsAndSpecAgree();
    void derivedDims();
    void specMismatchNamesThePlace();
    void sizesInDimNamesOneSpelling();
    void keyedInputsAreStatic();

private:
    std::optional<Capture> m_capture;
    ConstraintSet m_set;
};

void TstDimIntent::initTestCase()
{
    QString error;
    const auto project = ProjectFile::read(QStringLiteral(DIMSCOPE_SOURCE_DIR "/resources/demo/demo.dimscope"), &error);
    QVERIFY2(project, qPrintable(error));
    QVERIFY(project->constraints);
    m_set = *project->constraints;
    m_capture = CaptureReader::open(project->capturePath, &error);
    QVERIFY2(m_capture, qPrintable(error));
}

void TstDimIntent::constraintsAndSpecAgree()
{
    const int call = 4;
    const CallTree &tree = m_capture->calls.at(call).inputs;
    const DimIntent fromSet = DimIntent::fromConstraints(tree, m_set);
    QCOMPARE(fromSet.leafPaths.size(), tree.leaves.size());
    QCOMPARE(fromSet.leafDims.value(QStringLiteral("input_ids")), (QStringList{QStringLiteral("batch"), QStringLiteral("seq_len")}));
    QCOMPARE(fromSet.leafDims.value(QStringLiteral("past_key_values.value_cache[1]")),
             (QStringList{QStringLiteral("batch"), QStringLiteral("static"), QStringLiteral("past_len"),
                          QStringLiteral("static")}));
    QCOMPARE(fromSet.wantedDynamicCount(), 12);

    const QJsonObject spec = QJsonDocument::fromJson(JsonSpecEmitter::generate(*m_capture, m_set, call)).object();
    QString error;
    const DimIntent fromSpec = DimIntent::fromSpec(tree, spec, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(fromSpec.leafPaths, fromSet.leafPaths);
    QCOMPARE(fromSpec.leafDims, fromSet.leafDims);
}

void TstDimIntent::derivedDims()
{
    ConstraintSet set = m_set;
    QCOMPARE(set.makeDerived(QStringLiteral("total_len"), QStringLiteral("past_len"), 1, 1), QString());
    const CallTree &tree = m_capture->calls.at(4).inputs;
    const DimIntent fromSet = DimIntent::fromConstraints(tree, set);
    QVERIFY(fromSet.derived.contains(QStringLiteral("total_len")));
    QCOMPARE(fromSet.derived.value(QStringLiteral("total_len")).root, QStringLiteral("past_len"));
    QCOMPARE(fromSet.derived.value(QStringLiteral("total_len")).b, 1);
    const QJsonObject spec = QJsonDocument::fromJson(JsonSpecEmitter::generate(*m_capture, set, 4)).object();
    QString error;
    const DimIntent fromSpec = DimIntent::fromSpec(tree, spec, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QCOMPARE(fromSpec.derived.value(QStringLiteral("total_len")).root, QStringLiteral("past_len"));
    QCOMPARE(fromSpec.derived.value(QStringLiteral("total_len")).a, 1);
    QCOMPARE(fromSpec.derived.value(QStringLiteral("total_len")).b, 1);
}

void TstDimIntent::specMismatchNamesThePlace()
{
    const CallTree &tree = m_capture->calls.at(4).inputs;
    QJsonObject spec = QJsonDocument::fromJson(JsonSpecEmitter::generate(*m_capture, m_set, 4)).object();
    QJsonObject top = spec.value(QLatin1String("dynamic_shapes")).toObject();
    QJsonObject dict = top.value(QLatin1String("dict")).toObject();
    dict.insert(QStringLiteral("input_ids"),
                QJsonObject{{QStringLiteral("tensor"), QJsonObject{{QStringLiteral("5"), QStringLiteral("batch")}}}});
    top.insert(QStringLiteral("dict"), dict);
    spec.insert(QStringLiteral("dynamic_shapes"), top);
    QString error;
    DimIntent::fromSpec(tree, spec, &error);
    QVERIFY2(error.contains(QStringLiteral("dynamic_shapes['input_ids']")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("rank 2")), qPrintable(error));

    dict.insert(QStringLiteral("past_key_values"), QJsonObject{{QStringLiteral("list"), QJsonArray{}}});
    dict.insert(QStringLiteral("input_ids"), QJsonObject{{QStringLiteral("tensor"), QJsonObject{}}});
    top.insert(QStringLiteral("dict"), dict);
    spec.insert(QStringLiteral("dynamic_shapes"), top);
    DimIntent::fromSpec(tree, spec, &error);
    QVERIFY2(error.contains(QStringLiteral("dynamic_shapes['past_key_values']: the spec has 0 entries")), qPrintable(error));
}

// The one spelling of a size in Dim names, which the CLI's read-back and the result
// view both print (before, the CLI wrote "total_len = ..." and the view "total_len|...").
// An input the program is keyed to by value is traced static: every leaf under it (and
// no other whose name merely starts alike) is intended static, and no longer counts as
// wanted dynamic, so the read-back does not report its Dims as specialized.
void TstDimIntent::keyedInputsAreStatic()
{
    const CallTree &tree = m_capture->calls.at(4).inputs;
    const DimIntent intent = DimIntent::fromConstraints(tree, m_set);
    const DimIntent keyed = intent.withStatic({QStringLiteral("past_key_values"), QStringLiteral("input")});
    QCOMPARE(keyed.leafDims.value(QStringLiteral("past_key_values.value_cache[1]")),
             QStringList(4, QStringLiteral("static")));
    QCOMPARE(keyed.leafDims.value(QStringLiteral("input_ids")), intent.leafDims.value(QStringLiteral("input_ids")));
    QVERIFY(keyed.wantedDynamicCount() < intent.wantedDynamicCount());
    QCOMPARE(intent.withStatic({}).leafDims, intent.leafDims);
}

void TstDimIntent::sizesInDimNamesOneSpelling()
{
    Pt2DimMapping m;
    m.symbolToDim = {{QStringLiteral("s1"), QStringLiteral("seq_len")}, {QStringLiteral("s11"), QStringLiteral("past_len")}};
    m.expressionNames.insert(SymExpr::parse(QStringLiteral("s11 + s1")).toString(),
                             {QStringLiteral("total_len"), QStringLiteral("kv_len")});
    // a Dim torch expressed through others leads with its names
    QCOMPARE(m.namedExpression(SymExpr::parse(QStringLiteral("s11 + s1"))), QStringLiteral("total_len = kv_len = seq_len + past_len"));
    // whole symbols only: s1 does not hit s11; a symbol without a Dim stays torch's
    QCOMPARE(m.namedExpression(SymExpr::parse(QStringLiteral("s11"))), QStringLiteral("past_len"));
    QCOMPARE(m.namedExpression(SymExpr::parse(QStringLiteral("s12"))), QStringLiteral("s12"));
    QCOMPARE(m.namedSize(SymSize::fromExpr(SymExpr::parse(QStringLiteral("s1 + 1")), std::nullopt)), QStringLiteral("seq_len + 1"));
    QCOMPARE(m.namedSize(SymSize::fromInt(4)), QStringLiteral("4"));
}

DIMSCOPE_GUILESS_TEST_MAIN(TstDimIntent)
#include "tst_dimintent.moc"
