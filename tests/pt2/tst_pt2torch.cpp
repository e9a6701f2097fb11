// SPDX-License-Identifier: GPL-3.0-or-later
// Pt2Reader and `dimscope-cli pt2` on .pt2 files that torch exports while the test
// runs (tests/pt2/export_pt2.py under scripts/torch-python; torch 2.6 writes the
// 2.5-2.7 layout, re-packed here into the 2.8+ layout as well). What the reader must
// find comes from the ExportedProgram itself (expected.json, written by the script).
#include "pt2fixtures.h"

#include "pt2/pt2dimmapper.h"
#include "pt2/pt2reader.h"
#include "pt2/pt2treespec.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include "deterministictestmain.h"

using namespace dimscope;

namespace {

const QString kCli = QStringLiteral(DIMSCOPE_BINARY_DIR "/app/dimscope-cli");

struct CliRun {
    int exitCode = -1;
    QString out, err;
};

CliRun runCli(const QStringList &args)
{
    QProcess p;
    p.start(kCli, args);
    CliRun r;
    if (!p.waitForFinished(60000))
        return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

} // namespace

class TstPt2Torch : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void exported_data();
    void exported();
    void mappingMlp();
    void mappingNested();
    void cli();

private:
    QTemporaryDir m_dir;
    QJsonObject m_expected;
};

void TstPt2Torch::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QProcess py;
    py.setProcessChannelMode(QProcess::MergedChannels);
    py.start(QStringLiteral(DIMSCOPE_SOURCE_DIR "/scripts/torch-python"),
             {QStringLiteral(DIMSCOPE_SOURCE_DIR "/tests/pt2/export_pt2.py"), m_dir.path()});
    QVERIFY2(py.waitForFinished(300000), "torch export did not finish in 300 s");
    const QByteArray log = py.readAll();
    QVERIFY2(py.exitStatus() == QProcess::NormalExit && py.exitCode() == 0, log.constData());
    QFile f(m_dir.filePath(QStringLiteral("expected.json")));
    QVERIFY(f.open(QIODevice::ReadOnly));
    m_expected = QJsonDocument::fromJson(f.readAll()).object();
    QVERIFY(m_expected.contains(QStringLiteral("mlp.pt2")));
    QVERIFY(m_expected.contains(QStringLiteral("nested.pt2")));
    for (const QString &name : {QStringLiteral("mlp"), QStringLiteral("nested")})
        QVERIFY(pt2fixtures::repackAsArchive(m_dir.filePath(name + QStringLiteral(".pt2")),
                                             m_dir.filePath(name + QStringLiteral("-archive.pt2")), name));
}

void TstPt2Torch::exported_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("described");
    QTest::addColumn<bool>("archive");
    QTest::newRow("mlp 2.6") << "mlp.pt2" << "mlp.pt2" << false;
    QTest::newRow("mlp 2.8+ layout") << "mlp-archive.pt2" << "mlp.pt2" << true;
    QTest::newRow("nested 2.6") << "nested.pt2" << "nested.pt2" << false;
    QTest::newRow("nested 2.8+ layout") << "nested-archive.pt2" << "nested.pt2" << true;
}

void TstPt2Torch::exported()
{
    QFETCH(QString, file);
    QFETCH(QString, described);
    QFETCH(bool, archive);
    QString error;
    const auto p = Pt2Reader::open(m_dir.filePath(file), &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->layout, archive ? Pt2Layout::Archive : Pt2Layout::Legacy);
    QVERIFY2(p->warnings.isEmpty(), qPrintable(p->warnings.join(QLatin1Char('\n'))));
    const QJsonObject want = m_expected.value(described).toObject();

    const QJsonArray inputs = want.value(QStringLiteral("inputs")).toArray();
    QCOMPARE(p->inputs.size(), inputs.size());
    for (int i = 0; i < inputs.size(); ++i) {
        const QJsonObject w = inputs.at(i).toObject();
        const Pt2UserInput &in = p->inputs.at(i);
        QCOMPARE(in.name, w.value(QStringLiteral("name")).toString());
        QCOMPARE(in.kind, Pt2UserInput::Kind::Tensor);
        QVERIFY(!in.path.isEmpty());
        QCOMPARE(Pt2TreeSpec::placeholderName(in.path), in.name); // torch names placeholders from these paths
        QCOMPARE(in.tensor.dtype, w.value(QStringLiteral("dtype")).toString());
        const QJsonArray sizes = w.value(QStringLiteral("sizes")).toArray();
        QCOMPARE(in.tensor.sizes.size(), sizes.size());
        for (int d = 0; d < sizes.size(); ++d) {
            const SymExpr fromPython = SymExpr::parse(sizes.at(d).toString()); // str() form
            const SymSize &s = in.tensor.sizes.at(d);
            if (fromPython.isConstant()) {
                QVERIFY(s.isStatic);
                QCOMPARE(s.value, fromPython.constantTerm());
            } else {
                QVERIFY(!s.isStatic);
                QVERIFY2(s.expr.isSupported(), qPrintable(s.expr.problem()));
                QCOMPARE(s.expr, fromPython); // srepr in the file, str in Python
                QVERIFY(s.hint.has_value());
            }
        }
    }
    const QJsonObject ranges = want.value(QStringLiteral("ranges")).toObject();
    QCOMPARE(p->ranges.size(), ranges.size());
    for (auto it = ranges.constBegin(); it != ranges.constEnd(); ++it) {
        const auto r = p->rangeOf(SymExpr::parse(it.key()));
        QVERIFY2(r, qPrintable(it.key()));
        const QJsonArray bounds = it.value().toArray();
        QCOMPARE(r->min, std::optional<qint64>(bounds.at(0).toInteger()));
        if (bounds.at(1).isNull())
            QVERIFY(!r->max);
        else
            QCOMPARE(r->max, std::optional<qint64>(bounds.at(1).toInteger()));
    }
    QStringList params, buffers;
    for (const Pt2StateInput &s : p->state) {
        if (s.kind == Pt2StateInput::Kind::Parameter)
            params << s.target;
        else if (s.kind == Pt2StateInput::Kind::Buffer)
            buffers << s.target;
        if (s.kind == Pt2StateInput::Kind::Parameter || s.kind == Pt2StateInput::Kind::Buffer)
            QVERIFY(s.tensor.has_value());
    }
    QCOMPARE(QJsonArray::fromStringList(params), want.value(QStringLiteral("parameters")).toArray());
    QCOMPARE(QJsonArray::fromStringList(buffers), want.value(QStringLiteral("buffers")).toArray());
    QVERIFY(!p->outputs.isEmpty());
}

void TstPt2Torch::mappingMlp()
{
    const auto p = Pt2Reader::open(m_dir.filePath(QStringLiteral("mlp.pt2")), nullptr);
    QVERIFY(p);
    const QStringList leaves{QStringLiteral("x"), QStringLiteral("y")};
    const QHash<QString, QStringList> dims{{QStringLiteral("x"), {QStringLiteral("batch"), QStringLiteral("seq"), QStringLiteral("static")}},
                                           {QStringLiteral("y"), {QStringLiteral("batch"), QStringLiteral("seq_p1")}}};
    // The export used Dim("batch"), Dim("seq") and seq + 1 for y's dim 1.
    Pt2DimMapping m = Pt2DimMapper::map(*p, leaves, dims, {{QStringLiteral("seq_p1"), Pt2DerivedDim{QStringLiteral("seq"), 1, 1}}});
    QVERIFY2(m.problems.isEmpty(), qPrintable(m.problems.join(QLatin1Char('\n'))));
    const QJsonArray x = m_expected.value(QStringLiteral("mlp.pt2")).toObject().value(QStringLiteral("inputs")).toArray().at(0)
                             .toObject().value(QStringLiteral("sizes")).toArray();
    QCOMPARE(m.symbolToDim.value(x.at(0).toString()), QStringLiteral("batch"));
    QCOMPARE(m.symbolToDim.value(x.at(1).toString()), QStringLiteral("seq"));
    QCOMPARE(m.symbolToDim.size(), 2);
    // Without knowing seq_p1 is derived, the expression is reported, not guessed.
    m = Pt2DimMapper::map(*p, leaves, dims);
    QCOMPARE(m.expressionNames.value(x.at(1).toString() + QStringLiteral(" + 1")), QStringList{QStringLiteral("seq_p1")});
    // A wrong derivation is a problem.
    m = Pt2DimMapper::map(*p, leaves, dims, {{QStringLiteral("seq_p1"), Pt2DerivedDim{QStringLiteral("seq"), 2, 0}}});
    QVERIFY(m.problems.join(QLatin1Char('\n')).contains(QStringLiteral("y[1]: seq_p1 is 2*seq + 0 in the constraints")));
}

void TstPt2Torch::mappingNested()
{
    const auto p = Pt2Reader::open(m_dir.filePath(QStringLiteral("nested-archive.pt2")), nullptr);
    QVERIFY(p);
    // Capture-style leaf paths in flattening order, with the spec the export used.
    const QStringList kv{QStringLiteral("batch"), QStringLiteral("static"), QStringLiteral("past"), QStringLiteral("static")};
    const QStringList leaves{QStringLiteral("input_ids"), QStringLiteral("cache['keys'][0]"), QStringLiteral("cache['keys'][1]"),
                             QStringLiteral("cache['values'][0]"), QStringLiteral("cache['values'][1]"), QStringLiteral("mask")};
    const QHash<QString, QStringList> dims{{QStringLiteral("input_ids"), {QStringLiteral("batch"), QStringLiteral("seq")}},
                                           {QStringLiteral("cache['keys'][0]"), kv},
                                           {QStringLiteral("cache['keys'][1]"), kv}, {QStringLiteral("cache['values'][0]"), kv},
                                           {QStringLiteral("cache['values'][1]"), kv}, {QStringLiteral("mask"), {QStringLiteral("batch"), QStringLiteral("total")}}};
    const Pt2DimMapping m = Pt2DimMapper::map(*p, leaves, dims);
    QVERIFY2(m.problems.isEmpty(), qPrintable(m.problems.join(QLatin1Char('\n'))));
    // every Dim the spec made dynamic has a symbol, mapped back to its name
    const QJsonArray inputs = m_expected.value(QStringLiteral("nested.pt2")).toObject().value(QStringLiteral("inputs")).toArray();
    int named = 0;
    for (int i = 0; i < inputs.size(); ++i) {
        const QJsonArray sizes = inputs.at(i).toObject().value(QStringLiteral("sizes")).toArray();
        QCOMPARE(m.inputs.at(i).leafPath, leaves.at(i));
        QCOMPARE(m.inputs.at(i).matchedBy, QStringLiteral("path"));
        const QStringList intended = dims.value(leaves.at(i));
        for (int d = 0; d < sizes.size(); ++d) {
            if (intended.at(d) == QLatin1String("static"))
                continue;
            QCOMPARE(m.inputs.at(i).dims.at(d).status, Pt2DimMapping::Dim::Status::Symbolic);
            QCOMPARE(m.symbolToDim.value(sizes.at(d).toString()), intended.at(d));
            ++named;
        }
    }
    QCOMPARE(named, 2 + 4 * 2 + 2);
    QCOMPARE(m.dimToSymbols.keys(),
             (QStringList{QStringLiteral("batch"), QStringLiteral("past"), QStringLiteral("seq"), QStringLiteral("total")}));
}

void TstPt2Torch::cli()
{
    QVERIFY2(QFile::exists(kCli), qPrintable(kCli));
    CliRun r = runCli({QStringLiteral("pt2"), m_dir.filePath(QStringLiteral("mlp.pt2"))});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains(QStringLiteral("float32[s0, s1 + 1]")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("lin.weight")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("s1 + 1       [3, 101]")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("s1 [2, 100] -> x[1], y[1] (= s1 + 1)")), qPrintable(r.out));

    r = runCli({QStringLiteral("pt2"), m_dir.filePath(QStringLiteral("nested-archive.pt2")), QStringLiteral("--json")});
    QCOMPARE(r.exitCode, 0);
    QJsonParseError pe;
    const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8(), &pe).object();
    QCOMPARE(pe.error, QJsonParseError::NoError);
    QCOMPARE(o.value(QStringLiteral("layout")).toString(), QStringLiteral("archive"));
    QCOMPARE(o.value(QStringLiteral("model")).toString(), QStringLiteral("model"));
    const QJsonArray inputs = o.value(QStringLiteral("inputs")).toArray();
    QCOMPARE(inputs.size(), 6);
    QCOMPARE(inputs.at(1).toObject().value(QStringLiteral("path")).toString(), QStringLiteral("cache['keys'][0]"));
    QCOMPARE(o.value(QStringLiteral("symbols")).toObject().size(), 4);

    // errors: one line on stderr, exit 1; usage: exit 2
    const QString bad = m_dir.filePath(QStringLiteral("expected.json"));
    r = runCli({QStringLiteral("pt2"), bad});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.out.isEmpty());
    QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
    QVERIFY2(r.err.startsWith(QStringLiteral("dimscope-cli pt2: ") + bad + QStringLiteral(": not a zip archive")), qPrintable(r.err));
    r = runCli({QStringLiteral("pt2")});
    QCOMPARE(r.exitCode, 2);
    r = runCli({QStringLiteral("pt2"), bad, QStringLiteral("--verbose")});
    QCOMPARE(r.exitCode, 2);
}

DIMSCOPE_GUILESS_TEST_MAIN(TstPt2Torch)
#include "tst_pt2torch.moc"
