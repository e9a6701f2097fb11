// SPDX-License-Identifier: GPL-3.0-or-later
#include "capturebuilder.h"
#include "spec/jsonspecemitter.h"
#include "spec/pythonspecemitter.h"
#include "inference/shapeinference.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include "deterministictestmain.h"

using namespace dimscope;
using namespace dimscope::test;

class TestSpecEmitters : public QObject
{
    Q_OBJECT
private slots:
    void pythonLlm();
    void pythonAddAndHints();
    void jsonSpec();
    void exampleCallChoosesStructure();
    void documentIsTheWrittenSpec();
};

static Capture llm()
{
    Capture cap = makeCapture(QStringLiteral(
        "input_ids=2x3 attention_mask=2x3 past_key_values=- | "
        "input_ids=3x2 attention_mask=3x5 past_key_values=cache(2:3x4x3x8) | "
        "input_ids=4x2 attention_mask=4x6 past_key_values=cache(2:4x4x4x8) | "
        "input_ids=2x2 attention_mask=2x7 past_key_values=cache(2:2x4x5x8)"));
    Parameter p;
    p.name = QStringLiteral("use_cache");
    p.kind = QStringLiteral("POSITIONAL_OR_KEYWORD");
    p.hasDefault = true;
    p.defaultValue = false;
    cap.signature << p;
    for (CapturedCall &c : cap.calls)
        c.constantKwargs.insert(QStringLiteral("use_cache"), true);
    return cap;
}

void TestSpecEmitters::pythonLlm()
{
    const Capture cap = llm();
    const InferenceResult r = ShapeInference::infer(cap);
    QCOMPARE(r.exampleCall, 1);
    const QString py = PythonSpecEmitter::generate(cap, r.constraints);
    const QString expected = QStringLiteral(
        "# dynamic_shapes written by dimscope for test.Model, example call 1\n"
        "import torch\n"
        "from torch.export import Dim\n"
        "\n"
        "batch = Dim(\"batch\", min=1)\n"
        "seq_len = Dim(\"seq_len\", min=2)\n"
        "past_len = Dim(\"past_len\", min=2)\n"
        "total_len = past_len + 2\n"
        "\n"
        "dynamic_shapes = {\n"
        "    \"input_ids\": {0: batch, 1: seq_len},\n"
        "    \"attention_mask\": {0: batch, 1: total_len},\n"
        "    \"past_key_values\": [\n"
        "        [\n"
        "            {0: batch, 2: past_len},\n"
        "            {0: batch, 2: past_len},\n"
        "        ],\n"
        "        [\n"
        "            {0: batch, 2: past_len},\n"
        "            {0: batch, 2: past_len},\n"
        "        ],\n"
        "    ],\n"
        "    \"use_cache\": None,\n"
        "}\n");
    QCOMPARE(py, expected);
}

void TestSpecEmitters::pythonAddAndHints()
{
    const Capture cap = makeCapture(QStringLiteral("x=5x6 y=1x6 t=list(2x3,4) n=int(3) | x=7x8 y=1x8 t=list(2x3,4) n=int(3)"));
    InferenceResult r = ShapeInference::infer(cap);
    ConstraintSet s = r.constraints;
    QCOMPARE(s.makeAuto(QStringLiteral("t[0]"), 1), QString());
    QCOMPARE(s.makeDynamic(QStringLiteral("t[1]"), 0), QString());
    QCOMPARE(s.renameDim(QStringLiteral("x_dim1"), QStringLiteral("torch")), QString()); // shadows the module: renamed variable
    const QString py = PythonSpecEmitter::generate(cap, s, 0);
    QVERIFY2(py.endsWith(QStringLiteral("dim_torch = Dim(\"torch\", min=2)\n"
                                        "\n"
                                        "dynamic_shapes = {\n"
                                        "    \"x\": {0: batch, 1: dim_torch},\n"
                                        "    \"y\": {1: dim_torch},\n"
                                        "    \"t\": [\n"
                                        "        {1: Dim.AUTO},\n"
                                        "        {0: Dim.DYNAMIC},\n"
                                        "    ],\n"
                                        "    \"n\": None,\n"
                                        "}\n")),
             qPrintable(py));
    // An all-static capture still gives a usable snippet.
    const Capture one = makeCapture(QStringLiteral("x=2x3"));
    QCOMPARE(PythonSpecEmitter::generate(one, ShapeInference::infer(one).constraints),
             QStringLiteral("# dynamic_shapes written by dimscope for test.Model, example call 0\nimport torch\nfrom torch.export import Dim\n\n"
                            "dynamic_shapes = {\n    \"x\": {},\n}\n"));
}

void TestSpecEmitters::jsonSpec()
{
    const Capture cap = llm();
    const InferenceResult r = ShapeInference::infer(cap);
    const QByteArray json = JsonSpecEmitter::generate(cap, r.constraints);
    QJsonParseError pe;
    const QJsonObject doc = QJsonDocument::fromJson(json, &pe).object();
    QCOMPARE(pe.error, QJsonParseError::NoError);
    QCOMPARE(doc.value(QLatin1String("format")).toString(), QStringLiteral("dimscope.dynamic_shapes"));
    QCOMPARE(doc.value(QLatin1String("version")).toInt(), 1);
    const QJsonArray dims = doc.value(QLatin1String("dims")).toArray();
    QCOMPARE(dims.size(), 4);
    QCOMPARE(dims[2].toObject().value(QLatin1String("root")).toString(), QStringLiteral("past_len"));
    const QJsonObject top = doc.value(QLatin1String("dynamic_shapes")).toObject().value(QLatin1String("dict")).toObject();
    QCOMPARE(top.keys().size(), 4);
    QVERIFY(top.value(QLatin1String("use_cache")).isNull());
    QCOMPARE(top.value(QLatin1String("input_ids")).toObject().value(QLatin1String("tensor")).toObject().value(QLatin1String("1")).toString(),
             QStringLiteral("seq_len"));
    const QJsonArray cache = top.value(QLatin1String("past_key_values")).toObject().value(QLatin1String("list")).toArray();
    QCOMPARE(cache.size(), 2);
    const QJsonObject k1 =
        cache[0].toObject().value(QLatin1String("list")).toArray()[1].toObject().value(QLatin1String("tensor")).toObject();
    QCOMPARE(k1.value(QLatin1String("2")).toString(), QStringLiteral("past_len"));
    QVERIFY(!k1.contains(QLatin1String("1")));
    QVERIFY(json.startsWith("{\n  \"format\": \"dimscope.dynamic_shapes\",\n  \"version\": 1,\n  \"dims\": [\n    {\"name\": \"batch\", \"min\": 1, \"max\": null},"));
    QVERIFY(json.contains("  \"dynamic_shapes\": {\"dict\": {\n    \"input_ids\": {\"tensor\": {\"0\": \"batch\", \"1\": \"seq_len\"}},\n"));
}

void TestSpecEmitters::exampleCallChoosesStructure()
{
    // The prefill call (no cache) is never the example when a call has every input.
    const Capture cap = llm();
    const InferenceResult r = ShapeInference::infer(cap);
    QVERIFY(!PythonSpecEmitter::generate(cap, r.constraints, 0).contains(QLatin1String("past_key_values")));
    QVERIFY(PythonSpecEmitter::generate(cap, r.constraints).contains(QLatin1String("past_key_values")));
}

void TestSpecEmitters::documentIsTheWrittenSpec()
{
    // The worker request embeds document(); users read generate(): the same spec,
    // for every example call, with bounds beyond a double's exact range kept exact.
    const Capture cap = llm();
    ConstraintSet set = ShapeInference::infer(cap).constraints;
    QCOMPARE(set.setRange(QStringLiteral("batch"), 2, (qint64(1) << 62) + 1), QString());
    for (int call = -1; call < int(cap.calls.size()); ++call) {
        const QJsonObject written = QJsonDocument::fromJson(JsonSpecEmitter::generate(cap, set, call)).object();
        QVERIFY(!written.isEmpty());
        QCOMPARE(JsonSpecEmitter::document(cap, set, call), written);
    }
    const QJsonObject dim = JsonSpecEmitter::document(cap, set).value(QLatin1String("dims")).toArray().first().toObject();
    QCOMPARE(dim.value(QLatin1String("max")).toInteger(), (qint64(1) << 62) + 1);
}

DIMSCOPE_GUILESS_TEST_MAIN(TestSpecEmitters)
#include "tst_specemitters.moc"
