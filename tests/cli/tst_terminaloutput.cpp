// SPDX-License-Identifier: GPL-3.0-or-later
// What dimscope-cli sends to a terminal when files hold ESC sequences (OSC 0 retitle,
// OSC 52 clipboard, clear screen), C1 controls, CR/LF (fake lines), bidi overrides and
// zero-width characters in every kind of string: inspect, analyze (table, python,
// json, spec, --constraints), pt2 (text and --json) and export's errors. Nothing of
// that reaches stdout or stderr raw; text output shows it escaped, JSON keeps the
// data. And inspect's output grows with its input, not with longest path x leaves.
#include "pt2fixtures.h"
#include "safetensorswriter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include "deterministictestmain.h"

#include <algorithm>

using namespace dimscope::test;

namespace {

struct Run {
    int exitCode = -1;
    QByteArray out, err;
};

Run cli(const QStringList &args, const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(DIMSCOPE_CLI), args);
    Run r;
    if (!p.waitForFinished(60000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

// One code point (QString::fromUcs4 would drop a U+FEFF as a byte order mark).
QString cp(char32_t c) { return c <= 0xffff ? QString(QChar(char16_t(c))) : QString::fromUcs4(&c, 1); }

// Everything a terminal acts on or that hides or reorders text, in one string.
QString hostilePayload()
{
    return QStringLiteral("\x1b]0;RETITLED\x07") + QStringLiteral("\x1b]52;c;cHduZWQ=\x07") + QStringLiteral("\x1b[2J\x1b[H")
           + QStringLiteral("\rFAKE1 overwritten\nFAKE2 every dim the constraints made dynamic is symbolic\n")
           + cp(0x9b) + QStringLiteral("31m") + cp(0x85) + cp(0x7f) + QStringLiteral("\t\x08")
           + cp(0x202e) + QStringLiteral("txt.exe") + cp(0x202c) + cp(0x2066) + cp(0x2069) + cp(0x200b) + cp(0x200d)
           + cp(0x2060) + cp(0xfeff) + cp(0x061c) + cp(0x180e) + cp(0x2028) + QStringLiteral("end");
}

QString hostile(const QString &tag) { return tag + hostilePayload(); }

// The test's own list (not the code's): what must never reach a terminal raw.
bool mustNotReachTerminal(char32_t c)
{
    if (c == U'\n')
        return false; // the commands' own line breaks
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)
           || (c >= 0x200b && c <= 0x200f) || c == 0x2060 || c == 0xfeff || c == 0x061c || c == 0x180e || c == 0x2028
           || c == 0x2029 || (c >= 0xd800 && c <= 0xdfff);
}

// Scans the bytes as a terminal gets them. Returns what is wrong, empty when nothing.
QString rawCharacterIn(const QByteArray &bytes)
{
    const QString text = QString::fromUtf8(bytes);
    if (text.toUtf8() != bytes)
        return QStringLiteral("the output is not valid UTF-8");
    const QList<uint> codePoints = text.toUcs4();
    for (qsizetype i = 0; i < codePoints.size(); ++i) {
        if (mustNotReachTerminal(codePoints.at(i)))
            return QStringLiteral("raw U+%1 at character %2 in:\n%3")
                .arg(codePoints.at(i), 4, 16, QLatin1Char('0'))
                .arg(i)
                .arg(QString::fromLatin1(bytes.left(4000).toPercentEncoding(" \n/:[]()'\",=.-_*|<>")));
    }
    // A line feed inside a name must not start a line of its own ("FAKE2 ...").
    for (const QByteArray &line : bytes.split('\n')) {
        if (line.startsWith("FAKE"))
            return QStringLiteral("a fake line: %1").arg(QString::fromUtf8(line.left(200)));
    }
    return {};
}

#define VERIFY_INERT(run)                                                                                                  \
    do {                                                                                                               \
        const QString outProblem = rawCharacterIn((run).out);                                                         \
        QVERIFY2(outProblem.isEmpty(), qPrintable(QStringLiteral("stdout: ") + outProblem));                          \
        const QString errProblem = rawCharacterIn((run).err);                                                         \
        QVERIFY2(errProblem.isEmpty(), qPrintable(QStringLiteral("stderr: ") + errProblem));                          \
    } while (false)

QJsonObject tensorLeaf(const QString &tensor, const QVector<qint64> &shape, const QString &path)
{
    return QJsonObject{{QStringLiteral("kind"), QStringLiteral("tensor")}, {QStringLiteral("tensor"), tensor},
                       {QStringLiteral("dtype"), QStringLiteral("I64")}, {QStringLiteral("shape"), jsonShape(shape)},
                       {QStringLiteral("device"), QStringLiteral("cpu")}, {QStringLiteral("path"), path}};
}

QJsonObject dictNode(const QStringList &keys, const QJsonArray &children)
{
    return QJsonObject{{QStringLiteral("kind"), QStringLiteral("dict")}, {QStringLiteral("keys"), QJsonArray::fromStringList(keys)},
                       {QStringLiteral("children"), children}};
}

// The names every kind of string in the capture gets.
struct HostileNames {
    QString ids = hostile(QStringLiteral("ids"));           // a parameter name, a top-level key path
    QString cache = QStringLiteral("cache");
    QString key = hostile(QStringLiteral("key"));           // a nested dict key
    QString mode = QStringLiteral("mode");
    QString text = hostile(QStringLiteral("textvalue"));    // a str leaf's value
    QString producer = hostile(QStringLiteral("producer"));
    QString torch = hostile(QStringLiteral("torch"));
    QString transformers = hostile(QStringLiteral("transformers"));
    QString modelClass = hostile(QStringLiteral("Model"));
    QString defaultRepr = hostile(QStringLiteral("repr"));
    QString missing = hostile(QStringLiteral("missing"));
    QString kwarg = hostile(QStringLiteral("kwarg"));
    QString flatClass = hostile(QStringLiteral("pkg.Cache"));
    QString nestedPath() const { return cache + QStringLiteral("['") + key + QStringLiteral("']"); }
};

// Two calls whose sizes differ (so analyze names dynamic Dims after the paths).
// `duplicateKey` names the nested key twice: the reader refuses the file quoting it.
QByteArray hostileCapture(const HostileNames &n, bool duplicateKey = false)
{
    QVector<RawTensor> tensors;
    QJsonArray calls;
    for (int c = 0; c < 2; ++c) {
        const QVector<qint64> idsShape{2, 5 + c}, keyShape{3 + c};
        const QString idsTensor = QStringLiteral("c%1/ids").arg(c), keyTensor = QStringLiteral("c%1/key").arg(c);
        tensors.append({idsTensor, QStringLiteral("I64"), idsShape, QByteArray(int(2 * (5 + c) * 8), '\1')});
        tensors.append({keyTensor, QStringLiteral("I64"), keyShape, QByteArray(int((3 + c) * 8), '\2')});
        QStringList cacheKeys{n.key};
        QJsonArray cacheChildren{tensorLeaf(keyTensor, keyShape, n.nestedPath())};
        if (duplicateKey) {
            cacheKeys << n.key;
            cacheChildren.append(tensorLeaf(keyTensor, keyShape, n.nestedPath()));
        }
        const QJsonArray children{tensorLeaf(idsTensor, idsShape, n.ids), dictNode(cacheKeys, cacheChildren),
                                  QJsonObject{{QStringLiteral("kind"), QStringLiteral("str")}, {QStringLiteral("value"), n.text},
                                              {QStringLiteral("path"), n.mode}}};
        calls.append(QJsonObject{{QStringLiteral("index"), c}, {QStringLiteral("num_positional"), 1},
                                 {QStringLiteral("missing"), QJsonArray{n.missing}},
                                 {QStringLiteral("constant_kwargs"), QJsonObject{{n.kwarg, n.text}}},
                                 {QStringLiteral("inputs"), dictNode({n.ids, n.cache, n.mode}, children)}});
    }
    auto parameter = [](const QString &name, bool hasDefault) {
        return QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("kind"), QStringLiteral("POSITIONAL_OR_KEYWORD")},
                           {QStringLiteral("has_default"), hasDefault}};
    };
    QJsonObject withRepr = parameter(n.mode, true);
    withRepr.insert(QStringLiteral("default_repr"), n.defaultRepr);
    const QJsonObject manifest{
        {QStringLiteral("format"), QStringLiteral("dimscope.capture")}, {QStringLiteral("version"), 1},
        {QStringLiteral("producer"), n.producer}, {QStringLiteral("torch_version"), n.torch},
        {QStringLiteral("transformers_version"), n.transformers},
        {QStringLiteral("flattening"), QJsonObject{{n.flatClass, n.text}}},
        {QStringLiteral("model"), QJsonObject{{QStringLiteral("class"), n.modelClass},
                                              {QStringLiteral("signature"), QJsonArray{parameter(n.ids, false), parameter(n.cache, true), withRepr}}}},
        {QStringLiteral("calls"), calls},
    };
    return captureBytes(tensors, manifest);
}

QByteArray json(const QJsonObject &o) { return QJsonDocument(o).toJson(QJsonDocument::Compact); }

// Whether `text` is one of the strings in `v`, at any depth.
bool holdsString(const QJsonValue &v, const QString &text)
{
    if (v.isString())
        return v.toString() == text;
    if (v.isArray()) {
        const QJsonArray a = v.toArray();
        return std::any_of(a.begin(), a.end(), [&](const QJsonValue &item) { return holdsString(item, text); });
    }
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        return std::any_of(o.begin(), o.end(), [&](const QJsonValue &item) { return holdsString(item, text); });
    }
    return false;
}

} // namespace

class TestTerminalOutput : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    HostileNames m_names;
    QString m_capture;

    QString path(const QString &name) const { return m_dir.filePath(name); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_capture = path(QStringLiteral("hostile.safetensors"));
        QVERIFY(writeFile(m_capture, hostileCapture(m_names)));
    }

    void inspectShowsEveryStringEscaped()
    {
        const Run r = cli({QStringLiteral("inspect"), m_capture});
        QCOMPARE(r.exitCode, 0);
        VERIFY_INERT(r);
        const QString out = QString::fromUtf8(r.out);
        // Each string is printed, visibly escaped.
        for (const QString &tag : {QStringLiteral("producer"), QStringLiteral("torch"), QStringLiteral("transformers"),
                                   QStringLiteral("Model"), QStringLiteral("ids"), QStringLiteral("key"),
                                   QStringLiteral("textvalue"), QStringLiteral("repr"), QStringLiteral("missing"),
                                   QStringLiteral("pkg.Cache")})
            QVERIFY2(out.contains(tag + QStringLiteral("\\x1b]0;RETITLED\\x07\\x1b]52;c;cHduZWQ=")), qPrintable(tag));
        // Constant kwargs are shown as JSON: its own escapes, then the rest escaped.
        QVERIFY(out.contains(QStringLiteral("{\"kwarg\\u001b]0;RETITLED\\u0007")));
        QVERIFY(out.contains(QStringLiteral("\\rFAKE1 overwritten\\nFAKE2")));
        QVERIFY(out.contains(QStringLiteral("\\x9b31m\\x85\\x7f\\t\\x08\\u202etxt.exe\\u202c\\u2066\\u2069\\u200b\\u200d")));
    }

    void inspectJsonKeepsTheData()
    {
        const Run r = cli({QStringLiteral("inspect"), m_capture, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        VERIFY_INERT(r);
        // Still JSON, and the strings read back as they are in the file.
        QJsonParseError pe;
        const QJsonObject o = QJsonDocument::fromJson(r.out, &pe).object();
        QCOMPARE(pe.error, QJsonParseError::NoError);
        QCOMPARE(o.value(QStringLiteral("producer")).toString(), m_names.producer);
        QCOMPARE(o.value(QStringLiteral("model")).toObject().value(QStringLiteral("class")).toString(), m_names.modelClass);
        QCOMPARE(o.value(QStringLiteral("leaves")).toArray().at(0).toObject().value(QStringLiteral("path")).toString(), m_names.ids);
        QVERIFY(r.out.contains("\\u202e"));
    }

    void analyzeTable()
    {
        const Run r = cli({QStringLiteral("analyze"), m_capture});
        VERIFY_INERT(r);
        QVERIFY2(r.exitCode == 0 || r.exitCode == 1, r.err.constData());
        QVERIFY(QString::fromUtf8(r.out).contains(QStringLiteral("ids\\x1b]0;RETITLED")));
    }

    void analyzeFormats_data()
    {
        QTest::addColumn<QString>("format");
        QTest::newRow("python") << QStringLiteral("python");
        QTest::newRow("json") << QStringLiteral("json");
        QTest::newRow("spec") << QStringLiteral("spec");
    }
    void analyzeFormats()
    {
        QFETCH(QString, format);
        const Run r = cli({QStringLiteral("analyze"), m_capture, QStringLiteral("--format"), format});
        VERIFY_INERT(r);
        QVERIFY2(r.exitCode == 0 || r.exitCode == 1, r.err.constData());
        if (format == QLatin1String("python")) {
            // The class name is in a comment: a line feed in it must not start a line of code.
            const QString out = QString::fromUtf8(r.out);
            QVERIFY2(out.startsWith(QStringLiteral("# dynamic_shapes written by dimscope for Model\\x1b")), qPrintable(out.left(300)));
            QCOMPARE(out.count(QLatin1Char('\n')) > 0, true);
        } else {
            QJsonParseError pe;
            QJsonDocument::fromJson(r.out, &pe);
            QCOMPARE(pe.error, QJsonParseError::NoError);
            QVERIFY(r.out.contains("\\u202e")); // the key paths, escaped the JSON way
        }
    }

    void analyzeConstraintErrors_data()
    {
        QTest::addColumn<QByteArray>("constraints");
        const QJsonObject base{{QStringLiteral("format"), QStringLiteral("dimscope.constraints")}, {QStringLiteral("version"), 1}};
        auto with = [&](const QJsonArray &dims, const QJsonObject &leaves) {
            QJsonObject o = base;
            o.insert(QStringLiteral("dims"), dims);
            o.insert(QStringLiteral("leaves"), leaves);
            return json(o);
        };
        const QString bad = hostile(QStringLiteral("dim"));
        QTest::newRow("Dim name") << with({QJsonObject{{QStringLiteral("name"), bad}}}, {});
        QTest::newRow("unknown key") << with({QJsonObject{{QStringLiteral("name"), QStringLiteral("n")}, {bad, 1}}}, {});
        QTest::newRow("root") << with({QJsonObject{{QStringLiteral("name"), QStringLiteral("n")}, {QStringLiteral("root"), bad},
                                                   {QStringLiteral("a"), 1}, {QStringLiteral("b"), 0}}}, {});
        QTest::newRow("leaf names an unknown Dim")
            << with({}, QJsonObject{{m_names.ids, QJsonArray{bad, QStringLiteral("static")}}});
        QJsonObject topLevel = base;
        topLevel.insert(bad, 1);
        QTest::newRow("top-level key") << json(topLevel);
        // A set that reads: its violations quote the capture's paths.
        QTest::newRow("violations") << with({QJsonObject{{QStringLiteral("name"), QStringLiteral("n")},
                                                          {QStringLiteral("max"), 2}}},
                                            QJsonObject{{m_names.ids, QJsonArray{QStringLiteral("static"), QStringLiteral("n")}},
                                                        {m_names.nestedPath(), QJsonArray{QStringLiteral("n")}}});
    }
    void analyzeConstraintErrors()
    {
        QFETCH(QByteArray, constraints);
        const QString file = path(QStringLiteral("constraints.json"));
        QVERIFY(writeFile(file, constraints));
        for (const QString &format : {QStringLiteral("table"), QStringLiteral("json")}) {
            const Run r = cli({QStringLiteral("analyze"), m_capture, QStringLiteral("--constraints"), file,
                               QStringLiteral("--format"), format});
            VERIFY_INERT(r);
            QVERIFY2(r.exitCode == 1 || r.exitCode == 2, r.err.constData());
            const QByteArray both = r.out + r.err;
            QVERIFY2(both.contains("\\x1b]0;RETITLED"), both.constData());
        }
    }

    void readerErrorsQuoteEscaped()
    {
        const QString file = path(QStringLiteral("duplicate.safetensors"));
        QVERIFY(writeFile(file, hostileCapture(m_names, true)));
        for (const QStringList &args : {QStringList{QStringLiteral("inspect"), file}, QStringList{QStringLiteral("analyze"), file},
                                        QStringList{QStringLiteral("export"), QStringLiteral("--model"), path(QStringLiteral("m.py:f")),
                                                    QStringLiteral("--capture"), file, QStringLiteral("-o"), path(QStringLiteral("o.pt2"))}}) {
            const Run r = cli(args);
            QVERIFY2(r.exitCode > 0, qPrintable(args.first()));
            VERIFY_INERT(r);
            QVERIFY2(r.err.contains("key\\x1b]0;RETITLED"), r.err.constData());
        }
    }

    void exportErrorsQuoteEscaped()
    {
        // Refused before a worker starts: the constraint set names a hostile Dim, or
        // has a hostile format.
        const QString dims = path(QStringLiteral("dims.json"));
        QVERIFY(writeFile(dims, json(QJsonObject{{QStringLiteral("format"), QStringLiteral("dimscope.constraints")},
                                                 {QStringLiteral("version"), 1},
                                                 {QStringLiteral("dims"), QJsonArray{QJsonObject{{QStringLiteral("name"), hostile(QStringLiteral("dim"))}}}},
                                                 {QStringLiteral("leaves"), QJsonObject()}})));
        const QString format = path(QStringLiteral("format.json"));
        QVERIFY(writeFile(format, json(QJsonObject{{QStringLiteral("format"), hostile(QStringLiteral("format"))}})));
        for (const QString &constraints : {dims, format}) {
            const Run r = cli({QStringLiteral("export"), QStringLiteral("--model"), path(QStringLiteral("m.py:f")),
                               QStringLiteral("--capture"), m_capture, QStringLiteral("--constraints"), constraints,
                               QStringLiteral("-o"), path(QStringLiteral("o.pt2"))});
            QCOMPARE(r.exitCode, 2);
            VERIFY_INERT(r);
            QVERIFY2(r.err.contains("\\x1b]0;RETITLED"), r.err.constData());
        }
        QVERIFY(!QFile::exists(path(QStringLiteral("o.pt2"))));
    }

    // An output whose folder is missing, is a file or cannot be written is refused with
    // exit 2 before a worker starts (it was found by the worker, after the model had
    // loaded, once per phase, with exit 1). DIMSCOPE_PYTHON names no interpreter: had the
    // CLI gone on to start one, it would say so and exit 1.
    void exportRefusesAMissingOutputFolderBeforeTheWorker()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("DIMSCOPE_PYTHON"), path(QStringLiteral("no-python/python3")));
        const QString capture = QStringLiteral(DIMSCOPE_SOURCE_DIR "/resources/demo/demo-capture.safetensors");
        const QString missing = path(hostile(QStringLiteral("missing")));
        const QString notAFolder = path(QStringLiteral("plain-file"));
        QVERIFY(writeFile(notAFolder, "not a folder"));
        const QList<QPair<QStringList, QByteArray>> cases{
            {{QStringLiteral("-o"), missing + QStringLiteral("/x.pt2")}, "a folder that does not exist"},
            {{QStringLiteral("-o"), missing + QStringLiteral("/deeper/x.pt2")}, "a folder that does not exist"},
            {{QStringLiteral("-o"), notAFolder + QStringLiteral("/x.pt2")}, "which is a regular file, not a folder"},
            {{QStringLiteral("-o"), path(QStringLiteral("o.pt2")), QStringLiteral("--json"), missing + QStringLiteral("/r.json")},
             "a folder that does not exist"}};
        for (const auto &[outputs, why] : cases) {
            const Run r = cli(QStringList{QStringLiteral("export"), QStringLiteral("--model"), QStringLiteral("dimscope.demo:make_model"),
                                          QStringLiteral("--capture"), capture}
                                  + outputs,
                              env);
            QVERIFY2(r.exitCode == 2, r.err.constData());
            VERIFY_INERT(r);
            const QByteArray option = outputs.at(outputs.size() - 2).toUtf8();
            QVERIFY2(r.err.contains(QByteArray("dimscope-cli export: " + option + " " + QFile::encodeName(m_dir.path()))), r.err.constData());
            QVERIFY2(r.err.contains(why), r.err.constData());
            QVERIFY2(!r.err.contains("worker") && !r.out.contains("worker"), QByteArray(r.out + r.err).constData());
        }
        const Run missingFolder = cli({QStringLiteral("export"), QStringLiteral("--model"), QStringLiteral("dimscope.demo:make_model"),
                                       QStringLiteral("--capture"), capture, QStringLiteral("-o"), missing + QStringLiteral("/x.pt2")},
                                      env);
        QVERIFY2(missingFolder.err.contains("missing\\x1b]0;RETITLED"), missingFolder.err.constData());
        QVERIFY(!QFile::exists(path(QStringLiteral("o.pt2"))));
    }

    void pt2ShowsEveryStringEscaped()
    {
        const pt2fixtures::Records records = pt2fixtures::readZip(pt2fixtures::samplePath());
        QVERIFY(!records.isEmpty());
        // The program's input names and its torch version, and the archive's version.
        const QString name = hostile(QStringLiteral("input_ids"));
        const QByteArray quotedName = QJsonDocument(QJsonArray{name}).toJson(QJsonDocument::Compact).mid(1).chopped(1);
        const QByteArray quotedTorch =
            QJsonDocument(QJsonArray{hostile(QStringLiteral("torch"))}).toJson(QJsonDocument::Compact).mid(1).chopped(1);
        pt2fixtures::Records hostileRecords;
        for (auto record : records) {
            if (record.first.endsWith(QLatin1String(".json"))) {
                QVERIFY(record.second.contains("\"input_ids\""));
                record.second.replace("\"input_ids\"", quotedName);
                record.second.replace("\"2.6.0+debian\"", quotedTorch);
            } else if (record.first == QLatin1String("version")) {
                record.second = hostile(QStringLiteral("version")).toUtf8();
            }
            hostileRecords.append(record);
        }
        const QString file = path(QStringLiteral("hostile.pt2"));
        QVERIFY(pt2fixtures::writeZip(file, hostileRecords));
        const Run text = cli({QStringLiteral("pt2"), file});
        QCOMPARE(text.exitCode, 0);
        VERIFY_INERT(text);
        const QString out = QString::fromUtf8(text.out);
        for (const QString &tag : {QStringLiteral("input_ids"), QStringLiteral("torch"), QStringLiteral("version")})
            QVERIFY2(out.contains(tag + QStringLiteral("\\x1b]0;RETITLED")), qPrintable(tag + QStringLiteral(" in ") + out));

        const Run asJson = cli({QStringLiteral("pt2"), file, QStringLiteral("--json")});
        QCOMPARE(asJson.exitCode, 0);
        VERIFY_INERT(asJson);
        QJsonParseError pe;
        const QJsonDocument doc = QJsonDocument::fromJson(asJson.out, &pe);
        QCOMPARE(pe.error, QJsonParseError::NoError);
        QVERIFY(holdsString(doc.object(), name)); // the data is unchanged

        // An archive that is none: its record names are quoted in the error. (libzip
        // reads a name holding C0 controls as CP437, whose glyphs are harmless; bidi,
        // C1 and zero-width characters come through as UTF-8.)
        const QString notPt2 = path(QStringLiteral("records.pt2"));
        const QString record = QStringLiteral("record") + cp(0x202e) + QStringLiteral("txt") + cp(0x9b) + cp(0x200b) + cp(0x2066);
        QVERIFY(pt2fixtures::writeZip(notPt2, {{record, QByteArray("x")}}));
        const Run refused = cli({QStringLiteral("pt2"), notPt2});
        QCOMPARE(refused.exitCode, 1);
        VERIFY_INERT(refused);
        QVERIFY2(refused.err.contains("record\\u202etxt\\x9b\\u200b\\u2066"), refused.err.constData());
    }

    // One 1 MB key path among 10,000 leaves: the table used to pad all 10,000 rows to
    // its width (10 GB). Output now stays within a small multiple of the file.
    void inspectOutputFollowsTheInput()
    {
        QJsonArray children;
        QStringList keys;
        const QString huge = QStringLiteral("p").repeated(1 << 20);
        for (int i = 0; i < 10000; ++i) {
            const QString key = i == 5000 ? huge : QStringLiteral("k%1").arg(i);
            keys << key;
            children.append(QJsonObject{{QStringLiteral("kind"), QStringLiteral("int")}, {QStringLiteral("value"), i},
                                        {QStringLiteral("path"), key}});
        }
        const QJsonObject manifest{
            {QStringLiteral("format"), QStringLiteral("dimscope.capture")}, {QStringLiteral("version"), 1},
            {QStringLiteral("model"), QJsonObject{{QStringLiteral("class"), QStringLiteral("M")}, {QStringLiteral("signature"), QJsonArray()}}},
            {QStringLiteral("calls"), QJsonArray{QJsonObject{{QStringLiteral("index"), 0}, {QStringLiteral("num_positional"), 0},
                                                             {QStringLiteral("inputs"), dictNode(keys, children)}}}}};
        const QString file = path(QStringLiteral("long-path.safetensors"));
        const QByteArray bytes = captureBytes({}, manifest);
        QVERIFY(writeFile(file, bytes));
        // Read as it comes; stopped once past the bound, so the old behaviour fails
        // the test instead of writing gigabytes.
        const qint64 bound = 2 * bytes.size();
        QProcess p;
        qint64 written = 0;
        QByteArray head;
        connect(&p, &QProcess::readyReadStandardOutput, &p, [&] {
            const QByteArray chunk = p.readAllStandardOutput();
            written += chunk.size();
            if (head.size() < 1000000)
                head += chunk;
            if (written > bound)
                p.kill();
        });
        p.start(QStringLiteral(DIMSCOPE_CLI), {QStringLiteral("inspect"), file});
        QVERIFY(p.waitForFinished(120000));
        written += p.readAllStandardOutput().size();
        QVERIFY2(written <= bound, qPrintable(QStringLiteral("%1 bytes of output for a %2-byte capture").arg(written).arg(bytes.size())));
        QCOMPARE(p.exitCode(), 0);
        // The long path is elided where it is printed.
        QVERIFY(written < bytes.size());
        const QString out = QString::fromUtf8(head);
        QVERIFY(out.contains(QStringLiteral("…(1048576 characters)…")));
        // Rows keep a readable column: a short path is padded to at most 60 columns.
        const QStringList lines = out.split(QLatin1Char('\n'));
        const auto row = std::find_if(lines.cbegin(), lines.cend(), [](const QString &l) { return l.startsWith(QLatin1String("k1 ")); });
        QVERIFY(row != lines.cend());
        QCOMPARE(row->indexOf(QLatin1String("int")), 62);
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestTerminalOutput)
#include "tst_terminaloutput.moc"
