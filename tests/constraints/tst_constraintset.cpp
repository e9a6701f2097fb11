// SPDX-License-Identifier: GPL-3.0-or-later
#include "constraints/constraintset.h"
#include "constraints/constraintsetjson.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include "deterministictestmain.h"

using namespace dimscope;

class TestConstraintSet : public QObject
{
    Q_OBJECT
private slots:
    void edits();
    void editErrors_data();
    void editErrors();
    void mergeAndDerive();
    void jsonRoundTrip();
    void jsonDocExample();
    void badJson_data();
    void badJson();
    void countLimits();
    void fileRoundTrip();
};

static ConstraintSet sample()
{
    ConstraintSet s;
    s.addRootDim(QStringLiteral("batch"), 2, 64);
    s.addRootDim(QStringLiteral("past_len"), 2, std::nullopt);
    s.addDerivedDim(QStringLiteral("total_len"), QStringLiteral("past_len"), 1, 1);
    s.setLeaf(QStringLiteral("input_ids"), {DimAssignment::named(QStringLiteral("batch")), DimAssignment::makeStatic()});
    s.setLeaf(QStringLiteral("attention_mask"), {DimAssignment::named(QStringLiteral("batch")), DimAssignment::named(QStringLiteral("total_len"))});
    s.setLeaf(QStringLiteral("past_key_values.key_cache[0]"),
              {DimAssignment::named(QStringLiteral("batch")), DimAssignment::makeStatic(), DimAssignment::named(QStringLiteral("past_len")),
               DimAssignment::makeStatic()});
    s.setLeaf(QStringLiteral("pixel_values"), {DimAssignment::makeDynamic(), DimAssignment::makeAuto()});
    return s;
}

void TestConstraintSet::edits()
{
    ConstraintSet s = sample();
    const ConstraintSet before = s;
    QCOMPARE(s, before);
    QCOMPARE(s.renameDim(QStringLiteral("past_len"), QStringLiteral("cache_len")), QString());
    QCOMPARE(s.dim(QStringLiteral("total_len"))->root, QStringLiteral("cache_len"));
    QCOMPARE(s.assignment(QStringLiteral("past_key_values.key_cache[0]"), 2), DimAssignment::named(QStringLiteral("cache_len")));
    QVERIFY(s != before);
    QCOMPARE(s.setRange(QStringLiteral("batch"), 1, 8), QString());
    QCOMPARE(*s.dim(QStringLiteral("batch"))->max, 8);
    QCOMPARE(s.makeStatic(QStringLiteral("input_ids"), 0), QString());
    QCOMPARE(s.makeDynamic(QStringLiteral("input_ids"), 1), QString());
    QCOMPARE(s.assignment(QStringLiteral("input_ids"), 1), DimAssignment::makeDynamic());
    QCOMPARE(s.useCount(QStringLiteral("batch")), 2);
    QCOMPARE(s.removeDim(QStringLiteral("batch")), QString());
    QCOMPARE(s.assignment(QStringLiteral("attention_mask"), 0), DimAssignment::makeStatic());
    ConstraintSet unnamed = s;
    QCOMPARE(unnamed.unnameDim(QStringLiteral("cache_len")), QString()); // its derived total_len too
    QVERIFY(!unnamed.dim(QStringLiteral("cache_len")) && !unnamed.dim(QStringLiteral("total_len")));
    QCOMPARE(unnamed.assignment(QStringLiteral("attention_mask"), 1), DimAssignment::makeDynamic());
    QCOMPARE(unnamed.assignment(QStringLiteral("past_key_values.key_cache[0]"), 2), DimAssignment::makeDynamic());
    QVERIFY(unnamed.checkInvariants().isEmpty());
    QCOMPARE(unnamed.unnameDim(QStringLiteral("cache_len")), QStringLiteral("no Dim named 'cache_len'"));
    QCOMPARE(s.specializeDim(QStringLiteral("cache_len")), QString());
    QVERIFY(!s.dim(QStringLiteral("total_len")));
    QCOMPARE(s.assignment(QStringLiteral("attention_mask"), 1), DimAssignment::makeStatic());
    QVERIFY(s.checkInvariants().isEmpty());
    QCOMPARE(s.removeLeaf(QStringLiteral("input_ids")), QString());
    QVERIFY(!s.leaf(QStringLiteral("input_ids")));
    QVERIFY(s.leaf(QStringLiteral("pixel_values")));
}

void TestConstraintSet::editErrors_data()
{
    QTest::addColumn<int>("op");
    QTest::addColumn<QString>("error");
    QTest::newRow("dup name") << 0 << "a Dim named 'batch' already exists";
    QTest::newRow("keyword") << 1 << "'static' is a reserved word and cannot name a Dim";
    QTest::newRow("not identifier") << 2 << "'2x' is not a Python identifier (it must start with a letter or '_')";
    QTest::newRow("min > max") << 3 << "Dim 'batch': min 9 is greater than max 3";
    QTest::newRow("derived range") << 4 << "Dim 'total_len' is derived from 'past_len': set the range of 'past_len'";
    QTest::newRow("remove root in use") << 5 << "Dim 'past_len' is the root of total_len; remove or re-root them first";
    QTest::newRow("assign unknown") << 6 << "no Dim named 'nope'";
    QTest::newRow("assign past rank") << 7 << "input_ids has 2 dimension(s), there is no dim 5";
    QTest::newRow("derive a<=0") << 8 << "derived Dim 'x': the multiplier must be a positive integer, not 0";
    QTest::newRow("merge with derived child") << 9 << "'total_len' is derived from 'past_len' (past_len + 1): they cannot be equal";
}

void TestConstraintSet::editErrors()
{
    QFETCH(int, op);
    QFETCH(QString, error);
    ConstraintSet s = sample();
    const ConstraintSet before = s;
    QString got;
    switch (op) {
    case 0: got = s.addRootDim(QStringLiteral("batch")); break;
    case 1: got = s.renameDim(QStringLiteral("batch"), QStringLiteral("static")); break;
    case 2: got = s.addRootDim(QStringLiteral("2x")); break;
    case 3: got = s.setRange(QStringLiteral("batch"), 9, 3); break;
    case 4: got = s.setRange(QStringLiteral("total_len"), 1, 3); break;
    case 5: got = s.removeDim(QStringLiteral("past_len")); break;
    case 6: got = s.assign(QStringLiteral("input_ids"), 0, DimAssignment::named(QStringLiteral("nope"))); break;
    case 7: got = s.makeStatic(QStringLiteral("input_ids"), 5); break;
    case 8: got = s.addDerivedDim(QStringLiteral("x"), QStringLiteral("batch"), 0, 1); break;
    case 9: got = s.mergeDims(QStringLiteral("past_len"), QStringLiteral("total_len")); break;
    }
    QCOMPARE(got, error);
    QCOMPARE(s, before); // a failed edit leaves the set untouched
}

void TestConstraintSet::mergeAndDerive()
{
    ConstraintSet s;
    s.addRootDim(QStringLiteral("dx"));
    s.addRootDim(QStringLiteral("dy"));
    s.addDerivedDim(QStringLiteral("dz"), QStringLiteral("dy"), 2, 1);
    s.setLeaf(QStringLiteral("x"), {DimAssignment::named(QStringLiteral("dx"))});
    s.setLeaf(QStringLiteral("y"), {DimAssignment::named(QStringLiteral("dy")), DimAssignment::named(QStringLiteral("dz"))});
    ConstraintSet m = s;
    QCOMPARE(m.mergeDims(QStringLiteral("dx"), QStringLiteral("dy")), QString());
    QVERIFY(!m.dim(QStringLiteral("dy")));
    QCOMPARE(m.dim(QStringLiteral("dz"))->root, QStringLiteral("dx"));
    QCOMPARE(m.assignment(QStringLiteral("y"), 0), DimAssignment::named(QStringLiteral("dx")));
    // dy = 3*dx - 1 re-expresses dz = 2*dy + 1 = 6*dx - 1.
    ConstraintSet d = s;
    QCOMPARE(d.makeDerived(QStringLiteral("dy"), QStringLiteral("dx"), 3, -1), QString());
    QCOMPARE(d.dim(QStringLiteral("dz"))->relationText(), QStringLiteral("6*dx - 1"));
    QCOMPARE(d.dim(QStringLiteral("dy"))->relationText(), QStringLiteral("3*dx - 1"));
    QVERIFY(d.checkInvariants().isEmpty());
    QCOMPARE(d.makeDerived(QStringLiteral("dx"), QStringLiteral("dz"), 1, 0), QStringLiteral("Dim 'dx' cannot be derived from itself"));
    QCOMPARE(d.makeRoot(QStringLiteral("dy"), 2, 10), QString());
    QVERIFY(!d.dim(QStringLiteral("dy"))->isDerived());
}

void TestConstraintSet::jsonRoundTrip()
{
    const ConstraintSet s = sample();
    const QByteArray json = ConstraintSetJson::write(s);
    QString error;
    const auto back = ConstraintSetJson::read(json, &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(*back, s);
    QCOMPARE(ConstraintSetJson::write(*back), json);
    QCOMPARE(ConstraintSetJson::write(ConstraintSet()),
             QByteArray("{\n  \"format\": \"dimscope.constraints\",\n  \"version\": 1,\n  \"dims\": [],\n  \"leaves\": {}\n}\n"));
}

// The example of docs/spec-format.md reads back to the same bytes, derived-before-root
// and unsorted leaf order included.
void TestConstraintSet::jsonDocExample()
{
    const QByteArray doc = "{\n"
                           "  \"format\": \"dimscope.constraints\",\n"
                           "  \"version\": 1,\n"
                           "  \"dims\": [\n"
                           "    {\"name\": \"total_len\", \"root\": \"past_len\", \"a\": 1, \"b\": -1},\n"
                           "    {\"name\": \"batch\", \"min\": 2, \"max\": 64},\n"
                           "    {\"name\": \"past_len\", \"min\": null, \"max\": null}\n"
                           "  ],\n"
                           "  \"leaves\": {\n"
                           "    \"z\": [\"batch\", \"static\"],\n"
                           "    \"past_key_values.key_cache[0]\": [\"batch\", \"static\", \"past_len\", \"static\"],\n"
                           "    \"a\\\"b\": [\"dynamic\", \"auto\", \"total_len\"]\n"
                           "  }\n"
                           "}\n";
    QString error;
    const auto set = ConstraintSetJson::read(doc, &error);
    QVERIFY2(set, qPrintable(error));
    QCOMPARE(set->leaves().first().path, QStringLiteral("z"));
    QCOMPARE(set->leaves().last().path, QStringLiteral("a\"b"));
    QCOMPARE(set->dims().first().name, QStringLiteral("total_len"));
    QCOMPARE(ConstraintSetJson::write(*set), doc);
}

void TestConstraintSet::badJson_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("error");
    const QByteArray head = "{\"format\": \"dimscope.constraints\", \"version\": 1, ";
    QTest::newRow("syntax") << QByteArray("{\n  \"format\": ,\n}") << "not valid JSON at line 2, column 14: illegal value";
    QTest::newRow("not object") << QByteArray("[1]") << "the document is not a JSON object";
    QTest::newRow("format") << QByteArray("{\"format\": \"x\"}") << "format: expected \"dimscope.constraints\", found \"x\"";
    QTest::newRow("version") << QByteArray("{\"format\": \"dimscope.constraints\", \"version\": 7}") << "version: found 7, this dimscope reads version 1";
    QTest::newRow("dims type") << head + "\"dims\": {}}" << "dims: expected an array, found an object";
    QTest::newRow("min type") << head + "\"dims\": [{\"name\": \"a\", \"min\": \"2\"}]}" << "dims[0].min: expected an integer or null, found a string";
    QTest::newRow("min fraction") << head + "\"dims\": [{\"name\": \"a\", \"min\": 2.5}]}" << "dims[0].min: expected an integer or null, found a number with a fraction or an exponent";
    QTest::newRow("unknown key") << head + "\"dims\": [{\"name\": \"a\", \"mins\": 2}]}" << "dims[0]: unknown key 'mins' (a root Dim has name, min, max)";
    QTest::newRow("bad name") << head + "\"dims\": [{\"name\": \"auto\"}]}" << "dims[0]: 'auto' is a reserved word and cannot name a Dim";
    QTest::newRow("dup name") << head + "\"dims\": [{\"name\": \"a\"}, {\"name\": \"a\"}]}" << "dims[1]: a Dim named 'a' already exists";
    QTest::newRow("missing root") << head + "\"dims\": [{\"name\": \"a\", \"root\": \"r\", \"a\": 1, \"b\": 0}]}"
                                  << "dims[0]: derived Dim 'a': no Dim named 'r' to derive from";
    QTest::newRow("a zero") << head + "\"dims\": [{\"name\": \"r\"}, {\"name\": \"a\", \"root\": \"r\", \"a\": 0, \"b\": 0}]}" << "dims[1].a: expected a positive integer";
    // Found by fuzz_constraints: an empty root read as a root Dim that kept a = 2, and
    // writing it dropped a, so the set did not read back as itself.
    QTest::newRow("empty root") << head + "\"dims\": [{\"name\": \"x\", \"root\": \"\", \"a\": 2, \"b\": 0}]}"
                                << "dims[0].root: expected a Dim name, found an empty string";
    QTest::newRow("leaf type") << head + "\"leaves\": {\"x\": \"batch\"}}" << "leaves['x']: expected an array of strings (one per dimension), found a string";
    QTest::newRow("leaf entry") << head + "\"leaves\": {\"x\": [3]}}" << "leaves['x'][0]: expected \"static\", \"auto\", \"dynamic\" or a Dim name, found a number";
    QTest::newRow("leaf unknown dim") << head + "\"leaves\": {\"x\": [\"static\", \"batch\"]}}"
                                      << "leaves['x'][1]: 'batch' is not a Dim of \"dims\" (nor static, auto, dynamic)";
    // Found by fuzz_constraints: "\ud800" read into the key path, and writing the set
    // turned it into '?', so the set did not read back as itself.
    QTest::newRow("unpaired surrogate") << head + "\"leaves\": {\"x\\ud800y\": [\"static\"]}}"
                                        << "leaves['x\\uD800y']: the key path is not valid Unicode (an unpaired "
                                           "surrogate), so no capture has it";
    QTest::newRow("top key") << head + "\"leafs\": {}}" << "unknown top-level key 'leafs' (expected format, version, dims, leaves)";
}

void TestConstraintSet::badJson()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, error);
    QString got;
    QVERIFY(!ConstraintSetJson::read(json, &got));
    QCOMPARE(got, error);
}

// A document holds at most kMaxDims Dims, kMaxLeaves leaves and kMaxLeafDims entries
// per leaf; at the limit it is read whole, in its order, in well under a second (Dim
// names are hashed: a search per name made 10^5 Dims take 36 s).
void TestConstraintSet::countLimits()
{
    const QByteArray head = "{\"format\": \"dimscope.constraints\", \"version\": 1, ";
    auto dims = [](int n) -> QByteArray {
        // A derived Dim first, before its root: the document's order is kept.
        QByteArray a = "\"dims\": [{\"name\": \"twice\", \"root\": \"d0\", \"a\": 2, \"b\": 0}";
        for (int i = 0; i + 1 < n; ++i)
            a += ", {\"name\": \"d" + QByteArray::number(i) + "\", \"min\": 1}";
        return a + "]";
    };
    auto leaves = [](int n, int rank) -> QByteArray {
        QByteArray entries = "\"d0\"";
        for (int j = 1; j < rank; ++j)
            entries += ", \"twice\"";
        QByteArray a = "\"leaves\": {";
        for (int i = 0; i < n; ++i)
            a += (i ? ", \"x" : "\"x") + QByteArray::number(i) + "\": [" + entries + "]";
        return a + "}";
    };
    QString error;
    QElapsedTimer timer;
    timer.start();
    const auto full = ConstraintSetJson::read(head + dims(ConstraintSetJson::kMaxDims) + ", " + leaves(10000, 4) + "}", &error);
    QVERIFY2(full, qPrintable(error));
    qInfo("%d Dims, 10000 leaves read in %lld ms", int(full->dims().size()), timer.elapsed());
    QCOMPARE(full->dims().size(), ConstraintSetJson::kMaxDims);
    QCOMPARE(full->dims().first().name, QStringLiteral("twice"));
    QCOMPARE(full->dims().last().name, QStringLiteral("d%1").arg(ConstraintSetJson::kMaxDims - 2));
    QCOMPARE(full->indexOfDim(QStringLiteral("d5")), 6);
    QCOMPARE(full->leaf(QStringLiteral("x9999"))->dims.size(), 4);

    QVERIFY(!ConstraintSetJson::read(head + dims(ConstraintSetJson::kMaxDims + 1) + "}", &error));
    QCOMPARE(error, QStringLiteral("dims: 10001 Dims, more than the 10000 a constraint set may have"));
    QVERIFY(ConstraintSetJson::read(head + dims(2) + ", " + leaves(1, ConstraintSetJson::kMaxLeafDims) + "}", &error));
    QVERIFY(!ConstraintSetJson::read(head + dims(2) + ", " + leaves(1, ConstraintSetJson::kMaxLeafDims + 1) + "}", &error));
    QCOMPARE(error, QStringLiteral("leaves['x0']: 65 dimensions, more than the 64 a tensor may have"));
    QVERIFY(!ConstraintSetJson::read(head + dims(2) + ", " + leaves(ConstraintSetJson::kMaxLeaves + 1, 0) + "}", &error));
    QCOMPARE(error, QStringLiteral("leaves: 1000001 leaves, more than the 1000000 a constraint set may have"));
}

void TestConstraintSet::fileRoundTrip()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("c.json"));
    QString error;
    QVERIFY(ConstraintSetJson::writeFile(path, sample(), &error));
    const auto back = ConstraintSetJson::readFile(path, &error);
    QVERIFY2(back, qPrintable(error));
    QCOMPARE(*back, sample());
    QVERIFY(!ConstraintSetJson::readFile(dir.filePath(QStringLiteral("none.json")), &error));
    QVERIFY(error.startsWith(dir.filePath(QStringLiteral("none.json")) + QStringLiteral(": no such file")));
}

DIMSCOPE_GUILESS_TEST_MAIN(TestConstraintSet)
#include "tst_constraintset.moc"
