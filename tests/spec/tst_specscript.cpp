// SPDX-License-Identifier: GPL-3.0-or-later
// SpecScript: the export a project runs as a Python script, in each SpecDialect
// (issue 28 problem 11). tests/python/test_spec_script.py runs the scripts with torch.
#include "capturebuilder.h"
#include "inference/shapeinference.h"
#include "spec/pythonliteral.h"
#include "spec/specscript.h"
#include "spec/torchfeatures.h"

#include "deterministictestmain.h"

using namespace dimscope;
using namespace dimscope::test;

class TestSpecScript : public QObject
{
    Q_OBJECT
private slots:
    void namedDimsIsTheWholeExport();
    void everyDialectExportsSavesAndLoads();
    void hintsFollowTheTorchVersion();
    void shapesCollectionKeysTheExampleTensors();
    void additionalInputsTakeCallsOfTheSameStructure();
    void additionalInputsNameTheDimsThatNeverVary();
    void textFromFilesStaysALiteral();
    void torchFeaturesByVersion();
    void dialectNamesRoundTrip();
};

// Four calls of a decoder with a cache; the mask length is past_len + 2 (a derived Dim).
static Capture llm()
{
    return makeCapture(QStringLiteral(
        "input_ids=2x3 attention_mask=2x3 past_key_values=- | "
        "input_ids=3x2 attention_mask=3x5 past_key_values=cache(2:3x4x3x8) | "
        "input_ids=4x2 attention_mask=4x6 past_key_values=cache(2:4x4x4x8) | "
        "input_ids=2x2 attention_mask=2x7 past_key_values=cache(2:2x4x5x8)"));
}

static SpecScriptOptions options(SpecDialect dialect, const QString &torch = QStringLiteral("2.14.1"))
{
    SpecScriptOptions o;
    o.dialect = dialect;
    o.capturePath = QStringLiteral("/data/llm.safetensors");
    o.modelReference = QStringLiteral("models.llm:make");
    o.programPath = QStringLiteral("llm.pt2");
    o.torchVersion = torch;
    return o;
}

static QString script(SpecDialect dialect, const QString &torch = QStringLiteral("2.14.1"), const Capture &cap = llm())
{
    return SpecScript::generate(cap, ShapeInference::infer(cap).constraints, options(dialect, torch));
}

void TestSpecScript::namedDimsIsTheWholeExport()
{
    const QString expected = QStringLiteral(
        "# The export dimscope runs for test.Model, as a script: dynamic_shapes as Named Dims.\n"
        "# Example call 1 of the capture; torch 2.14.1 (the export runtime).\n"
        "import torch\n"
        "from torch.export import Dim\n"
        "\n"
        "import dimscope\n"
        "\n"
        "# The model and the example call, loaded as dimscope's export loads them.\n"
        "model = dimscope.load_model(\"models.llm:make\")\n"
        "capture = dimscope.load_capture(\"/data/llm.safetensors\")\n"
        "dimscope.register_capture_flattening(capture.manifest)\n"
        "call = capture.calls[1]\n"
        "args, kwargs = call.call_arguments()\n"
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
        "}\n"
        "\n"
        "program = torch.export.export(model, args, kwargs, dynamic_shapes=dynamic_shapes, strict=False)\n"
        "print(program.range_constraints)\n"
        "dimscope.save_program(program, \"llm.pt2\")\n"
        "\n"
        "# Where the program is used (another process: the model's code imported first, as\n"
        "# docs/real-models.md says); load_program registers the cache classes it records.\n"
        "program = dimscope.load_program(\"llm.pt2\")\n");
    QCOMPARE(script(SpecDialect::NamedDims), expected);
}

void TestSpecScript::everyDialectExportsSavesAndLoads()
{
    for (SpecDialect d : SpecDialects::all()) {
        const QString text = script(d);
        QVERIFY2(text.contains(QLatin1String("as a script: dynamic_shapes as ") + SpecDialects::label(d)), qPrintable(text));
        QVERIFY(text.contains(QLatin1String("model = dimscope.load_model(\"models.llm:make\")\n")));
        QVERIFY(text.contains(QLatin1String("\ndynamic_shapes = ")));
        QVERIFY(text.contains(QLatin1String("program = torch.export.export(model, args, kwargs, dynamic_shapes=dynamic_shapes, strict=False)\n")));
        QVERIFY(text.contains(QLatin1String("dimscope.save_program(program, \"llm.pt2\")\n")));
        QVERIFY(text.endsWith(QLatin1String("program = dimscope.load_program(\"llm.pt2\")\n")));
    }
    SpecScriptOptions strict = options(SpecDialect::NamedDims);
    strict.strict = true;
    strict.device = QStringLiteral("cuda");
    strict.modelReference.clear();
    const Capture cap = llm();
    const QString text = SpecScript::generate(cap, ShapeInference::infer(cap).constraints, strict);
    QVERIFY(text.contains(QLatin1String("strict=True)")));
    QVERIFY(text.contains(QLatin1String("raise SystemExit(\"the project names no model: load yours into `model` here\")\n")));
    QVERIFY(text.contains(QLatin1String("capture = dimscope.load_capture(\"/data/llm.safetensors\", device=\"cuda\")\n")));
}

void TestSpecScript::hintsFollowTheTorchVersion()
{
    const QString known = script(SpecDialect::DimHints);
    QVERIFY2(known.contains(QLatin1String("batch = Dim.DYNAMIC(min=1)\nseq_len = Dim.DYNAMIC(min=2)\n")), qPrintable(known));
    QVERIFY(known.contains(QLatin1String("total_len = Dim.DYNAMIC  # total_len = past_len + 2: torch finds the relation from the model\n")));
    QVERIFY(known.contains(QLatin1String("\"attention_mask\": {0: batch, 1: total_len},")));
    QVERIFY(!known.contains(QLatin1String("bounded")));

    const QString old = script(SpecDialect::DimHints, QStringLiteral("2.6.0+debian"));
    QVERIFY2(old.contains(QLatin1String("seq_len = Dim.DYNAMIC  # min=2: torch 2.6.0+debian takes no range on a hint\n")), qPrintable(old));
    // A version is the worker's text: a line feed in it stays in the comment.
    const QString odd = script(SpecDialect::DimHints, QStringLiteral("2.6\nimport os"));
    QVERIFY2(odd.contains(QLatin1String("# min=2: torch 2.6\\nimport os takes no range on a hint\n")), qPrintable(odd));
    QVERIFY(!odd.contains(QLatin1String("\nimport os")));

    const QString unknown = script(SpecDialect::DimHints, QString());
    QVERIFY(unknown.contains(QLatin1String("torch version not known")));
    QVERIFY(unknown.contains(QLatin1String("def bounded(hint, **bounds):\n")));
    QVERIFY(unknown.contains(QLatin1String("    return hint(**bounds) if callable(hint) else hint\n")));
    QVERIFY(unknown.contains(QLatin1String("seq_len = bounded(Dim.DYNAMIC, min=2)\n")));
}

void TestSpecScript::shapesCollectionKeysTheExampleTensors()
{
    const QString text = script(SpecDialect::ShapesCollection);
    QVERIFY2(text.contains(QLatin1String("total_len = past_len + 2\n\n"
                                         "# Each tensor of the example call with its dynamic dims; the others stay static.\n"
                                         "shapes = torch.export.ShapesCollection()\n"
                                         "shapes[call.input_leaf(\"input_ids\")] = {0: batch, 1: seq_len}\n"
                                         "shapes[call.input_leaf(\"attention_mask\")] = {0: batch, 1: total_len}\n"
                                         "shapes[call.input_leaf(\"past_key_values.key_cache[0]\")] = {0: batch, 2: past_len}\n")),
             qPrintable(text));
    QCOMPARE(text.count(QLatin1String("shapes[call.input_leaf(")), 6);
    QVERIFY(text.contains(QLatin1String("dynamic_shapes = shapes.dynamic_shapes(model, args, kwargs)\n")));
}

void TestSpecScript::additionalInputsTakeCallsOfTheSameStructure()
{
    const QString text = script(SpecDialect::AdditionalInputs);
    QVERIFY2(text.contains(QLatin1String("# Left out, their inputs have another structure than call 1's: call(s) 0\n"
                                         "additional = torch.export.AdditionalInputs()\n"
                                         "for index in [2, 3]:\n"
                                         "    additional.add(*capture.calls[index].call_arguments())\n"
                                         "dynamic_shapes = additional\n")),
             qPrintable(text));
    QVERIFY(!text.contains(QLatin1String("from torch.export import Dim")));
    // seq_len is 2 in calls 1-3 (3 only in call 0, left out).
    QVERIFY(text.contains(QLatin1String("# Never varies among the calls, so static here (the named dialect keeps it dynamic): seq_len\n")));
    QVERIFY(!text.contains(QLatin1String("hasattr(torch.export, \"AdditionalInputs\")")));
    for (const QString &torch : {QStringLiteral("2.6.0"), QString()})
        QVERIFY(script(SpecDialect::AdditionalInputs, torch).contains(QLatin1String("if not hasattr(torch.export, \"AdditionalInputs\"):\n")));
}

void TestSpecScript::additionalInputsNameTheDimsThatNeverVary()
{
    // batch is 2 in every call, but a Dim in the set (as --batch-dim makes it).
    Capture cap = makeCapture(QStringLiteral("x=2x3 | x=2x5 | x=2x4"));
    ConstraintSet set = ShapeInference::infer(cap).constraints;
    QCOMPARE(set.addRootDim(QStringLiteral("batch"), 1), QString());
    QCOMPARE(set.assign(QStringLiteral("x"), 0, DimAssignment::named(QStringLiteral("batch"))), QString());
    const QString text = SpecScript::generate(cap, set, options(SpecDialect::AdditionalInputs));
    QVERIFY2(text.contains(QLatin1String("# Never varies among the calls, so static here (the named dialect keeps it dynamic): batch\n")),
             qPrintable(text));
}

void TestSpecScript::textFromFilesStaysALiteral()
{
    QCOMPARE(PythonLiteral::string(QStringLiteral("a\"b\\c")), QStringLiteral("\"a\\\"b\\\\c\""));
    QCOMPARE(PythonLiteral::string(QStringLiteral("x\ny\x1b")), QStringLiteral("\"x\\ny\\x1b\""));
    QCOMPARE(PythonLiteral::string(QString::fromUtf8("r\u202eev")), QStringLiteral("\"r\\u202eev\""));
    QCOMPARE(PythonLiteral::string(QString::fromUtf8("caf\u00e9")), QString::fromUtf8("\"caf\u00e9\""));
    SpecScriptOptions o = options(SpecDialect::NamedDims);
    o.capturePath = QStringLiteral("/tmp/x\nimport os\n.safetensors");
    const Capture cap = llm();
    const QString text = SpecScript::generate(cap, ShapeInference::infer(cap).constraints, o);
    QVERIFY(text.contains(QLatin1String("capture = dimscope.load_capture(\"/tmp/x\\nimport os\\n.safetensors\")\n")));
    QVERIFY(!text.contains(QLatin1String("\nimport os")));
}

void TestSpecScript::torchFeaturesByVersion()
{
    QCOMPARE(TorchFeatures(QStringLiteral("2.6.0+debian")).hintsTakeBounds(), std::optional<bool>(false));
    QCOMPARE(TorchFeatures(QStringLiteral("2.14.1")).hintsTakeBounds(), std::optional<bool>(true));
    QCOMPARE(TorchFeatures(QStringLiteral("3.0")).hasAdditionalInputs(), std::optional<bool>(true));
    QCOMPARE(TorchFeatures(QStringLiteral("2.8.0")).hasAdditionalInputs(), std::optional<bool>());
    QCOMPARE(TorchFeatures(QString()).hintsTakeBounds(), std::optional<bool>());
    QCOMPARE(TorchFeatures(QStringLiteral("nightly")).hintsTakeBounds(), std::optional<bool>());
}

void TestSpecScript::dialectNamesRoundTrip()
{
    for (SpecDialect d : SpecDialects::all())
        QCOMPARE(SpecDialects::fromName(SpecDialects::name(d)), std::optional<SpecDialect>(d));
    QCOMPARE(SpecDialects::fromName(QStringLiteral("yaml")), std::optional<SpecDialect>());
}

DIMSCOPE_GUILESS_TEST_MAIN(TestSpecScript)
#include "tst_specscript.moc"
