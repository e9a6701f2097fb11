// SPDX-License-Identifier: GPL-3.0-or-later
// Pt2Reader on the shared torch 2.6 sample, on the same program re-packed in the
// torch 2.8+ PT2 archive layout, on malformed archives; Pt2DimMapper on the sample.
#include "hostilefiles.h"
#include "pt2fixtures.h"

#include "pt2/pt2dimmapper.h"
#include "json/pt2json.h"
#include "pt2/pt2reader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtEndian>
#include "deterministictestmain.h"

#include <functional>
#include <limits>

using namespace dimscope;
using namespace dimscope::test;
using namespace pt2fixtures;

namespace {

QStringList shapes(const Pt2Program &p)
{
    QStringList out;
    for (const Pt2UserInput &in : p.inputs)
        out << in.name + QLatin1Char(' ') + in.tensor.shapeString();
    return out;
}

QStringList rangeLines(const Pt2Program &p)
{
    QStringList out;
    for (const Pt2Range &r : p.ranges)
        out << r.key + QLatin1Char(' ') + r.toString();
    return out;
}

// The sample's leaves as a capture names them, in flattening order.
const QStringList kSampleLeaves{QStringLiteral("input_ids"), QStringLiteral("attention_mask"), QStringLiteral("past_key_values.key_cache[0]"),
                                QStringLiteral("past_key_values.key_cache[1]"), QStringLiteral("past_key_values.value_cache[0]"),
                                QStringLiteral("past_key_values.value_cache[1]")};

} // namespace

class TstPt2Reader : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void sample();
    void archiveLayout();
    void archiveModelChoice();
    void everyProgramOfAnArchive();
    void dimNamesRecordedByDimscope();
    void malformed_data();
    void malformed();
    void integersAtTheLimits();
    void inflatedSizeLimits();
    void inSpecCostIsBounded();
    void mapping();
    void mappingSpecializedAndConflicts();
    void mappingFallbacks();
    void json();

private:
    void checkSampleProgram(const Pt2Program &p);
    QString writeJsonVariant(const QString &name, const std::function<void(QJsonObject &)> &edit);

    QTemporaryDir m_dir;
    QByteArray m_sampleJson;
    struct Bad {
        QString tag, path;
        QStringList expected;
    };
    QVector<Bad> m_bad;
};

void TstPt2Reader::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFile::exists(samplePath()), qPrintable(samplePath()));
    m_sampleJson = record(readZip(samplePath()), QStringLiteral("serialized_exported_program.json"));
    QVERIFY(!m_sampleJson.isEmpty());

    auto add = [this](const QString &tag, const QString &path, const QStringList &expected) {
        m_bad.append({tag, path, expected});
    };
    const QString dir = m_dir.path() + QLatin1Char('/');

    // Not a zip at all, empty, truncated, missing.
    {
        QFile f(dir + QStringLiteral("text.pt2"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not a zip archive\n");
    }
    add(QStringLiteral("not a zip"), dir + QStringLiteral("text.pt2"), {QStringLiteral("not a zip archive")});
    {
        QFile f(dir + QStringLiteral("empty.pt2"));
        QVERIFY(f.open(QIODevice::WriteOnly));
    }
    add(QStringLiteral("empty file"), dir + QStringLiteral("empty.pt2"), {QStringLiteral("empty file")});
    {
        QFile in(samplePath());
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray all = in.readAll();
        QFile f(dir + QStringLiteral("truncated.pt2"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(all.left(all.size() / 2));
    }
    add(QStringLiteral("truncated"), dir + QStringLiteral("truncated.pt2"), {QStringLiteral("truncated or damaged zip archive")});
    add(QStringLiteral("missing file"), dir + QStringLiteral("nope.pt2"), {QStringLiteral("no such file")});
    add(QStringLiteral("directory"), m_dir.path(), {QStringLiteral("is a directory, not a regular file")});
    add(QStringLiteral("character device"), QStringLiteral("/dev/zero"), {QStringLiteral("/dev/zero: is a character device, not a regular file")});
    // A FIFO would block zip_open until a writer came (malformed() guards the run).
    QVERIFY(makeFifo(dir + QStringLiteral("fifo.pt2")));
    add(QStringLiteral("fifo"), dir + QStringLiteral("fifo.pt2"), {QStringLiteral("fifo.pt2: is a FIFO (named pipe), not a regular file")});

    // Zips without a program.
    QVERIFY(writeZip(dir + QStringLiteral("nojson.pt2"), {{QStringLiteral("version"), "8.2"}, {QStringLiteral("serialized_state_dict.pt"), "x"}}));
    add(QStringLiteral("missing json"), dir + QStringLiteral("nojson.pt2"),
        {QStringLiteral("not a torch.export archive"), QStringLiteral("serialized_exported_program.json"), QStringLiteral("version")});
    {
        // libzip writes no file for zero records: an end-of-central-directory record alone
        QFile f(dir + QStringLiteral("emptyzip.pt2"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray("PK\x05\x06", 4) + QByteArray(18, '\0'));
    }
    add(QStringLiteral("empty zip"), dir + QStringLiteral("emptyzip.pt2"), {QStringLiteral("records: none")});

    // Bad JSON text.
    QVERIFY(writeZip(dir + QStringLiteral("badjson.pt2"), {{QStringLiteral("serialized_exported_program.json"), "{\"graph_module\": "}}));
    add(QStringLiteral("bad json"), dir + QStringLiteral("badjson.pt2"), {QStringLiteral("serialized_exported_program.json"), QStringLiteral("bad JSON at byte 17: unexpected end of JSON")});
    QVERIFY(writeZip(dir + QStringLiteral("array.pt2"), {{QStringLiteral("serialized_exported_program.json"), "[1, 2]"}}));
    add(QStringLiteral("json array"), dir + QStringLiteral("array.pt2"), {QStringLiteral("not a JSON object")});

    // Damaged record: stored uncompressed, then one byte of its data changed -> CRC error.
    {
        const QString path = dir + QStringLiteral("crc.pt2");
        QVERIFY(writeZip(path, {{QStringLiteral("serialized_exported_program.json"), m_sampleJson}}, true));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QByteArray all = f.readAll();
        const int at = all.indexOf("past_key_values_value_cache_1");
        QVERIFY(at > 0);
        all[at] = 'P';
        f.seek(0);
        f.write(all);
    }
    add(QStringLiteral("crc mismatch"), dir + QStringLiteral("crc.pt2"), {QStringLiteral("damaged record"), QStringLiteral("serialized_exported_program.json")});

    // Structurally wrong programs, each one edit away from the real sample.
    auto tv = [](QJsonObject &root, const std::function<void(QJsonObject &)> &edit) {
        QJsonObject gm = root[QStringLiteral("graph_module")].toObject();
        QJsonObject graph = gm[QStringLiteral("graph")].toObject();
        QJsonObject values = graph[QStringLiteral("tensor_values")].toObject();
        edit(values);
        graph[QStringLiteral("tensor_values")] = values;
        gm[QStringLiteral("graph")] = graph;
        root[QStringLiteral("graph_module")] = gm;
    };
    auto specs = [](QJsonObject &root, const std::function<void(QJsonArray &)> &edit) {
        QJsonObject gm = root[QStringLiteral("graph_module")].toObject();
        QJsonObject sig = gm[QStringLiteral("signature")].toObject();
        QJsonArray in = sig[QStringLiteral("input_specs")].toArray();
        edit(in);
        sig[QStringLiteral("input_specs")] = in;
        gm[QStringLiteral("signature")] = sig;
        root[QStringLiteral("graph_module")] = gm;
    };
    auto editInput = [tv](const QString &name, const std::function<void(QJsonObject &)> &edit) {
        return [tv, name, edit](QJsonObject &root) {
            tv(root, [&](QJsonObject &values) {
                QJsonObject meta = values[name].toObject();
                edit(meta);
                values[name] = meta;
            });
        };
    };
    add(QStringLiteral("sizes wrong type"),
        writeJsonVariant(QStringLiteral("sizes-type"), editInput(QStringLiteral("input_ids"), [](QJsonObject &m) { m[QStringLiteral("sizes")] = QStringLiteral("2x3"); })),
        {QStringLiteral("graph_module.graph.tensor_values['input_ids'].sizes"), QStringLiteral("expected a list, got a string")});
    add(QStringLiteral("size entry wrong type"),
        writeJsonVariant(QStringLiteral("size-entry"), editInput(QStringLiteral("attention_mask"), [](QJsonObject &m) {
            QJsonArray s = m[QStringLiteral("sizes")].toArray();
            s[1] = QJsonObject{{QStringLiteral("as_int"), QStringLiteral("8")}};
            m[QStringLiteral("sizes")] = s;
        })),
        {QStringLiteral("tensor_values['attention_mask'].sizes[1].as_int"), QStringLiteral("expected an integer, got a string")});
    add(QStringLiteral("fractional size"),
        writeJsonVariant(QStringLiteral("size-frac"), editInput(QStringLiteral("attention_mask"), [](QJsonObject &m) {
            QJsonArray s = m[QStringLiteral("sizes")].toArray();
            s[1] = QJsonObject{{QStringLiteral("as_int"), 2.5}};
            m[QStringLiteral("sizes")] = s;
        })),
        {QStringLiteral("sizes[1].as_int"), QStringLiteral("expected an integer, got 2.5")});
    add(QStringLiteral("unknown size union tag"),
        writeJsonVariant(QStringLiteral("size-tag"), editInput(QStringLiteral("input_ids"), [](QJsonObject &m) {
            QJsonArray s = m[QStringLiteral("sizes")].toArray();
            s[0] = QJsonObject{{QStringLiteral("as_symbol"), QStringLiteral("s0")}};
            m[QStringLiteral("sizes")] = s;
        })),
        {QStringLiteral("sizes[0]"), QStringLiteral("unknown union tag 'as_symbol'")});
    add(QStringLiteral("two-key union"),
        writeJsonVariant(QStringLiteral("size-twokeys"), editInput(QStringLiteral("input_ids"), [](QJsonObject &m) {
            QJsonArray s = m[QStringLiteral("sizes")].toArray();
            s[0] = QJsonObject{{QStringLiteral("as_int"), 1}, {QStringLiteral("as_expr"), QJsonObject()}};
            m[QStringLiteral("sizes")] = s;
        })),
        {QStringLiteral("sizes[0]"), QStringLiteral("exactly one of")});
    add(QStringLiteral("expr_str missing"),
        writeJsonVariant(QStringLiteral("expr-missing"), editInput(QStringLiteral("input_ids"), [](QJsonObject &m) {
            QJsonArray s = m[QStringLiteral("sizes")].toArray();
            s[0] = QJsonObject{{QStringLiteral("as_expr"), QJsonObject{{QStringLiteral("hint"), QJsonObject{{QStringLiteral("as_int"), 2}}}}}};
            m[QStringLiteral("sizes")] = s;
        })),
        {QStringLiteral("sizes[0].as_expr.expr_str: missing")});
    add(QStringLiteral("dtype wrong type"),
        writeJsonVariant(QStringLiteral("dtype"), editInput(QStringLiteral("input_ids"), [](QJsonObject &m) { m[QStringLiteral("dtype")] = QStringLiteral("int64"); })),
        {QStringLiteral("tensor_values['input_ids'].dtype"), QStringLiteral("expected an integer")});
    add(QStringLiteral("device wrong type"),
        writeJsonVariant(QStringLiteral("device"), editInput(QStringLiteral("input_ids"), [](QJsonObject &m) { m[QStringLiteral("device")] = QStringLiteral("cpu"); })),
        {QStringLiteral("tensor_values['input_ids'].device"), QStringLiteral("expected an object")});
    add(QStringLiteral("unknown input spec tag"),
        writeJsonVariant(QStringLiteral("spec-tag"), [specs](QJsonObject &root) {
            specs(root, [](QJsonArray &in) {
                in[1] = QJsonObject{{QStringLiteral("user_inputz"), in[1].toObject()[QStringLiteral("user_input")]}};
            });
        }),
        {QStringLiteral("graph_module.signature.input_specs[1]"), QStringLiteral("unknown union tag 'user_inputz'")});
    add(QStringLiteral("input without tensor meta"),
        writeJsonVariant(QStringLiteral("no-meta"), [tv](QJsonObject &root) {
            tv(root, [](QJsonObject &values) { values.remove(QStringLiteral("past_key_values_key_cache_1")); });
        }),
        {QStringLiteral("input_specs[3].user_input.arg.as_tensor"), QStringLiteral("'past_key_values_key_cache_1' has no entry")});
    add(QStringLiteral("input specs not a list"),
        writeJsonVariant(QStringLiteral("specs-type"), [](QJsonObject &root) {
            QJsonObject gm = root[QStringLiteral("graph_module")].toObject();
            QJsonObject sig = gm[QStringLiteral("signature")].toObject();
            sig[QStringLiteral("input_specs")] = 7;
            gm[QStringLiteral("signature")] = sig;
            root[QStringLiteral("graph_module")] = gm;
        }),
        {QStringLiteral("graph_module.signature.input_specs: expected a list, got a number")});
    add(QStringLiteral("missing graph_module"),
        writeJsonVariant(QStringLiteral("no-gm"), [](QJsonObject &root) { root.remove(QStringLiteral("graph_module")); }),
        {QStringLiteral("graph_module: missing")});
    add(QStringLiteral("missing range constraints"),
        writeJsonVariant(QStringLiteral("no-ranges"), [](QJsonObject &root) { root.remove(QStringLiteral("range_constraints")); }),
        {QStringLiteral("range_constraints: missing")});
    add(QStringLiteral("range bound wrong type"),
        writeJsonVariant(QStringLiteral("range-type"), [](QJsonObject &root) {
            QJsonObject r = root[QStringLiteral("range_constraints")].toObject();
            r[QStringLiteral("s5")] = QJsonObject{{QStringLiteral("min_val"), QStringLiteral("1")}, {QStringLiteral("max_val"), 4096}};
            root[QStringLiteral("range_constraints")] = r;
        }),
        {QStringLiteral("range_constraints['s5'].min_val"), QStringLiteral("expected an integer, got a string")});
    add(QStringLiteral("in_spec wrong type"),
        writeJsonVariant(QStringLiteral("inspec-type"), [](QJsonObject &root) {
            QJsonObject gm = root[QStringLiteral("graph_module")].toObject();
            QJsonArray mcg = gm[QStringLiteral("module_call_graph")].toArray();
            QJsonObject e = mcg[0].toObject();
            QJsonObject sig = e[QStringLiteral("signature")].toObject();
            sig[QStringLiteral("in_spec")] = QJsonArray{1, 2};
            e[QStringLiteral("signature")] = sig;
            mcg[0] = e;
            gm[QStringLiteral("module_call_graph")] = mcg;
            root[QStringLiteral("graph_module")] = gm;
        }),
        {QStringLiteral("module_call_graph[0].signature.in_spec: expected a string")});

    // Numbers that are no 64-bit integers: refused where they are, never cast.
    add(QStringLiteral("size 1e21"),
        writeJsonVariant(QStringLiteral("size-1e21"), editInput(QStringLiteral("attention_mask"), [](QJsonObject &m) {
            QJsonArray s = m[QStringLiteral("sizes")].toArray();
            s[1] = QJsonObject{{QStringLiteral("as_int"), 1e21}};
            m[QStringLiteral("sizes")] = s;
        })),
        {QStringLiteral("tensor_values['attention_mask'].sizes[1].as_int: expected an integer, got 1e+21, which does not fit in 64 bits")});
    add(QStringLiteral("range bound 1e300"),
        writeJsonVariant(QStringLiteral("range-1e300"), [](QJsonObject &root) {
            QJsonObject r = root[QStringLiteral("range_constraints")].toObject();
            r[QStringLiteral("s5")] = QJsonObject{{QStringLiteral("min_val"), 1}, {QStringLiteral("max_val"), -1e300}};
            root[QStringLiteral("range_constraints")] = r;
        }),
        {QStringLiteral("range_constraints['s5'].max_val: expected an integer, got -1e+300, which does not fit in 64 bits")});
    add(QStringLiteral("dtype past int"),
        writeJsonVariant(QStringLiteral("dtype-big"), editInput(QStringLiteral("input_ids"), [](QJsonObject &m) { m[QStringLiteral("dtype")] = qint64(1) << 40; })),
        {QStringLiteral("tensor_values['input_ids'].dtype: 1099511627776 is out of range")});

    // Two records of one name: libzip would read the first, Python's zipfile the last.
    {
        const QString path = dir + QStringLiteral("twice.pt2");
        QVERIFY(writeZip(path, {{QStringLiteral("serialized_exported_program.json"), m_sampleJson},
                                {QStringLiteral("serialized_exported_program.jsoX"), "[1, 2]"}}, true));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QByteArray all = f.readAll();
        QCOMPARE(all.count("serialized_exported_program.jsoX"), 2); // local header, central directory
        all.replace("serialized_exported_program.jsoX", "serialized_exported_program.json");
        f.seek(0);
        f.write(all);
    }
    add(QStringLiteral("two records of one name"), dir + QStringLiteral("twice.pt2"),
        {QStringLiteral("the archive has two records named 'serialized_exported_program.json'")});

    // 2.8+ layout whose archive_format is not "pt2".
    {
        Records r{{QStringLiteral("m/archive_format"), "zip"}, {QStringLiteral("m/models/model.json"), m_sampleJson}};
        QVERIFY(writeZip(dir + QStringLiteral("format.pt2"), r));
        add(QStringLiteral("archive_format not pt2"), dir + QStringLiteral("format.pt2"), {QStringLiteral("archive_format says 'zip'")});
        Records r2{{QStringLiteral("m/archive_format"), "pt2"}, {QStringLiteral("m/models/model.json"), "{]"}};
        QVERIFY(writeZip(dir + QStringLiteral("archive-badjson.pt2"), r2));
        add(QStringLiteral("archive bad json"), dir + QStringLiteral("archive-badjson.pt2"), {QStringLiteral("m/models/model.json: bad JSON")});
    }
}

QString TstPt2Reader::writeJsonVariant(const QString &name, const std::function<void(QJsonObject &)> &edit)
{
    QJsonObject root = QJsonDocument::fromJson(m_sampleJson).object();
    edit(root);
    const QString path = m_dir.path() + QLatin1Char('/') + name + QStringLiteral(".pt2");
    const Records records{{QStringLiteral("serialized_exported_program.json"), QJsonDocument(root).toJson()},
                          {QStringLiteral("version"), "8.2"}};
    if (!writeZip(path, records))
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

void TstPt2Reader::checkSampleProgram(const Pt2Program &p)
{
    QCOMPARE(p.schemaMajor, 8);
    QCOMPARE(p.schemaMinor, 2);
    QCOMPARE(p.torchVersion, QStringLiteral("2.6.0+debian"));
    QCOMPARE(p.opsetVersion.value(QStringLiteral("aten")), 10);
    QCOMPARE(p.forwardArgNames,
             (QStringList{QStringLiteral("input_ids"), QStringLiteral("attention_mask"), QStringLiteral("past_key_values")}));
    QCOMPARE(shapes(p), (QStringList{QStringLiteral("input_ids int64[s0, s1]"), QStringLiteral("attention_mask int64[s0, s3]"),
                                     QStringLiteral("past_key_values_key_cache_0 float32[s0, 4, s5, 8]"),
                                     QStringLiteral("past_key_values_key_cache_1 float32[s0, 4, s5, 8]"),
                                     QStringLiteral("past_key_values_value_cache_0 float32[s6, 4, s7, 8]"),
                                     QStringLiteral("past_key_values_value_cache_1 float32[s6, 4, s7, 8]")}));
    QStringList paths;
    for (const Pt2UserInput &in : p.inputs) {
        paths << in.path;
        QCOMPARE(in.kind, Pt2UserInput::Kind::Tensor);
        QCOMPARE(in.tensor.device, QStringLiteral("cpu"));
    }
    QCOMPARE(paths, kSampleLeaves);
    // hints are the example's sizes; strides keep their expressions
    const Pt2TensorMeta &ids = p.inputs.at(0).tensor;
    QCOMPARE(ids.sizes.at(0).hint, std::optional<qint64>(2));
    QCOMPARE(ids.sizes.at(1).hint, std::optional<qint64>(3));
    QCOMPARE(ids.scalarType, 5);
    const Pt2TensorMeta &k0 = p.inputs.at(2).tensor;
    QVERIFY(k0.strides);
    QCOMPARE(k0.strides->size(), 4);
    QCOMPARE(k0.strides->at(0).toString(), QStringLiteral("32*s5"));
    QCOMPARE(k0.strides->at(1).toString(), QStringLiteral("8*s5"));
    QCOMPARE(k0.strides->at(2).toString(), QStringLiteral("8"));
    QCOMPARE(k0.strides->at(0).hint, std::optional<qint64>(160));
    QCOMPARE(k0.sizes.at(2).expr.text(), QStringLiteral("Symbol('s5', positive=True, integer=True)"));

    QCOMPARE(rangeLines(p), (QStringList{QStringLiteral("s0 [1, 64]"), QStringLiteral("s1 [1, 512]"), QStringLiteral("s3 [0, 8192]"),
                                         QStringLiteral("s5 [1, 4096]"), QStringLiteral("s6 [1, 64]"), QStringLiteral("s7 [1, 4096]")}));
    QCOMPARE(p.inputSymbols(), (QStringList{QStringLiteral("s0"), QStringLiteral("s1"), QStringLiteral("s3"), QStringLiteral("s5"),
                                            QStringLiteral("s6"), QStringLiteral("s7")}));
    QCOMPARE(p.rangeOf(SymExpr::symbol(QStringLiteral("s3")))->max, std::optional<qint64>(8192));
    QVERIFY(!p.rangeOf(SymExpr::symbol(QStringLiteral("s2"))));
    QVERIFY(p.state.isEmpty());
    QCOMPARE(p.outputs.size(), 1);
    QCOMPARE(p.outputs.at(0).kind, QStringLiteral("user_output"));
    QCOMPARE(p.outputs.at(0).name, QStringLiteral("add_1"));
    QVERIFY(p.outputs.at(0).tensor);
    QCOMPARE(p.outputs.at(0).tensor->shapeString(), QStringLiteral("float32[]"));
    QVERIFY2(p.warnings.isEmpty(), qPrintable(p.warnings.join(QLatin1Char('\n'))));

    const auto uses = Pt2DimMapper::symbolUses(p);
    QCOMPARE(uses.value(QStringLiteral("s0")).size(), 4);
    QCOMPARE(uses.value(QStringLiteral("s7")).size(), 2);
    QCOMPARE(uses.value(QStringLiteral("s7")).at(0).path, QStringLiteral("past_key_values.value_cache[0]"));
    QCOMPARE(uses.value(QStringLiteral("s7")).at(0).dim, 2);
}

void TstPt2Reader::sample()
{
    QString error;
    const auto p = Pt2Reader::open(samplePath(), &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->layout, Pt2Layout::Legacy);
    QCOMPARE(p->jsonEntry, QStringLiteral("serialized_exported_program.json"));
    QCOMPARE(p->archiveVersion, QStringLiteral("8.2"));
    QVERIFY(p->archiveRoot.isEmpty());
    QVERIFY(p->modelName.isEmpty());
    checkSampleProgram(*p);
}

void TstPt2Reader::archiveLayout()
{
    const QString path = m_dir.path() + QStringLiteral("/repacked.pt2");
    QVERIFY(repackAsArchive(samplePath(), path, QStringLiteral("repacked")));
    QString error;
    const auto p = Pt2Reader::open(path, &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->layout, Pt2Layout::Archive);
    QCOMPARE(p->archiveRoot, QStringLiteral("repacked/"));
    QCOMPARE(p->jsonEntry, QStringLiteral("repacked/models/model.json"));
    QCOMPARE(p->modelName, QStringLiteral("model"));
    QCOMPARE(p->archiveVersion, QStringLiteral("6"));
    QCOMPARE(p->pt2ArchiveVersion, QStringLiteral("0"));
    checkSampleProgram(*p);
}

void TstPt2Reader::archiveModelChoice()
{
    // "model" wins over names sorted before it
    const QString both = m_dir.path() + QStringLiteral("/two-models.pt2");
    QVERIFY(repackAsArchive(samplePath(), both, QStringLiteral("pkg"), QStringLiteral("model"), {QStringLiteral("aaa")}));
    QString error;
    auto p = Pt2Reader::open(both, &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->modelNames, (QStringList{QStringLiteral("model"), QStringLiteral("aaa")})); // "model" first
    QCOMPARE(p->modelName, QStringLiteral("model"));

    // without "model", the first by name
    const QString other = m_dir.path() + QStringLiteral("/other-models.pt2");
    QVERIFY(repackAsArchive(samplePath(), other, QStringLiteral("pkg"), QStringLiteral("zeta"), {QStringLiteral("beta")}));
    p = Pt2Reader::open(other, &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->modelName, QStringLiteral("beta"));
    QCOMPARE(p->jsonEntry, QStringLiteral("pkg/models/beta.json"));

    // an archive without a root folder
    const QString rootless = m_dir.path() + QStringLiteral("/rootless.pt2");
    QVERIFY(repackAsArchive(samplePath(), rootless, QString()));
    p = Pt2Reader::open(rootless, &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->jsonEntry, QStringLiteral("models/model.json"));
    checkSampleProgram(*p);
}

// dimscope's phased export writes its programs into one archive ("model", "phase2",
// ...): each is read by name, all of them by openAll, numbers in order.
// dimscope's export stores each program's Dim names in the file (dimscope_dims.json, an
// extra file): a .pt2 opened on its own shows "batch × seq_len", not "s0 × s1" (issue 28
// problem 10). Files without the record (older ones, other exporters) read as before; a
// damaged record costs the names only, with a warning.
void TstPt2Reader::dimNamesRecordedByDimscope()
{
    const QString path = m_dir.path() + QStringLiteral("/named.pt2");
    QVERIFY(repackAsArchive(samplePath(), path, QStringLiteral("named"), QStringLiteral("model"), {QStringLiteral("phase2")}));
    const auto withRecord = [&](const QString &file, const QString &place, const QByteArray &json) {
        Records records = readZip(path);
        records.append({place, json});
        return writeZip(file, records);
    };
    const QByteArray good = R"({"format": "dimscope.pt2_dims", "version": 1, "programs": {
        "model": {"symbols": {"s0": "batch", "s1": "seq_len", "s5": "past_len"}},
        "phase2": {"symbols": {"s0": "bsz"}}}})";
    const QString named = m_dir.path() + QStringLiteral("/named-record.pt2");
    QVERIFY(withRecord(named, QStringLiteral("named/extra/dimscope_dims.json"), good));
    QString error;
    const QVector<Pt2Program> all = Pt2Reader::openAll(named, &error);
    QVERIFY2(all.size() == 2, qPrintable(error));
    QCOMPARE(all.at(0).recordedDimNames, (QMap<QString, QString>{{QStringLiteral("s0"), QStringLiteral("batch")},
                                                                 {QStringLiteral("s1"), QStringLiteral("seq_len")},
                                                                 {QStringLiteral("s5"), QStringLiteral("past_len")}}));
    QCOMPARE(all.at(1).recordedDimNames.value(QStringLiteral("s0")), QStringLiteral("bsz"));
    QVERIFY(all.at(0).warnings.isEmpty());
    const std::optional<Pt2DimMapping> mapping = Pt2DimMapper::recorded(all.at(0));
    QVERIFY(mapping);
    QCOMPARE(mapping->namedSize(all.at(0).inputs.at(0).tensor.sizes.at(1)), QStringLiteral("seq_len"));

    // torch 2.6's flat layout keeps extra files under extra_files/
    Records legacy = readZip(samplePath());
    legacy.append({QStringLiteral("extra_files/dimscope_dims.json"), good});
    const QString flat = m_dir.path() + QStringLiteral("/flat-record.pt2");
    QVERIFY(writeZip(flat, legacy));
    const auto flatProgram = Pt2Reader::open(flat, &error);
    QVERIFY2(flatProgram, qPrintable(error));
    QCOMPARE(flatProgram->recordedDimNames.value(QStringLiteral("s1")), QStringLiteral("seq_len"));

    // no record: no names, nothing to warn about
    const auto plain = Pt2Reader::open(path, &error);
    QVERIFY(plain && plain->recordedDimNames.isEmpty() && plain->warnings.isEmpty());
    QVERIFY(!Pt2DimMapper::recorded(*plain));

    // a damaged record: the program reads, without names, and says why
    const QString bad = m_dir.path() + QStringLiteral("/bad-record.pt2");
    QVERIFY(withRecord(bad, QStringLiteral("named/extra/dimscope_dims.json"),
                       R"({"format": "dimscope.pt2_dims", "version": 1, "programs": {"model": {"symbols": {"s0": "<b>x</b>"}}}})"));
    const auto damaged = Pt2Reader::open(bad, &error);
    QVERIFY2(damaged, qPrintable(error));
    QVERIFY(damaged->recordedDimNames.isEmpty());
    QCOMPARE(damaged->warnings.size(), 1);
    QVERIFY2(damaged->warnings.first().contains(QLatin1String("named/extra/dimscope_dims.json"))
                 && damaged->warnings.first().contains(QLatin1String("'s0'")),
             qPrintable(damaged->warnings.first()));
    QVERIFY(withRecord(bad, QStringLiteral("named/extra/dimscope_dims.json"), "{not json"));
    const auto notJson = Pt2Reader::open(bad, &error);
    QVERIFY(notJson && notJson->recordedDimNames.isEmpty());
    QVERIFY2(notJson->warnings.value(0).contains(QLatin1String("bad JSON")), qPrintable(notJson->warnings.value(0)));
}

void TstPt2Reader::everyProgramOfAnArchive()
{
    const QString path = m_dir.path() + QStringLiteral("/phases.pt2");
    QVERIFY(repackAsArchive(samplePath(), path, QStringLiteral("phases"), QStringLiteral("model"),
                            {QStringLiteral("phase10"), QStringLiteral("phase2")}));
    QString error;
    const auto phase2 = Pt2Reader::open(path, &error, {}, QStringLiteral("phase2"));
    QVERIFY2(phase2, qPrintable(error));
    QCOMPARE(phase2->modelName, QStringLiteral("phase2"));
    QCOMPARE(phase2->jsonEntry, QStringLiteral("phases/models/phase2.json"));
    QCOMPARE(phase2->modelNames, (QStringList{QStringLiteral("model"), QStringLiteral("phase2"), QStringLiteral("phase10")}));
    checkSampleProgram(*phase2);

    const QVector<Pt2Program> all = Pt2Reader::openAll(path, &error);
    QCOMPARE(all.size(), 3);
    QStringList names;
    for (const Pt2Program &p : all) {
        names << p.modelName;
        checkSampleProgram(p);
    }
    QCOMPARE(names, phase2->modelNames);

    // a program the archive does not hold: the file, the name asked for and what it holds
    QVERIFY(!Pt2Reader::open(path, &error, {}, QStringLiteral("phase3")));
    QVERIFY2(error.startsWith(path) && error.contains(QStringLiteral("no program named 'phase3'"))
                 && error.contains(QStringLiteral("model, phase2, phase10")),
             qPrintable(error));
    // a file of the torch 2.5-2.7 layout holds "model" only
    QVERIFY(Pt2Reader::open(samplePath(), &error, {}, QStringLiteral("model")));
    QVERIFY(!Pt2Reader::open(samplePath(), &error, {}, QStringLiteral("phase2")));
    QVERIFY2(error.contains(QStringLiteral("the file holds: model")), qPrintable(error));
    QCOMPARE(Pt2Reader::openAll(samplePath(), &error).size(), 1);
}

void TstPt2Reader::malformed_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QStringList>("expected");
    for (const Bad &b : m_bad)
        QTest::newRow(qPrintable(b.tag)) << b.path << b.expected;
}

void TstPt2Reader::malformed()
{
    QFETCH(QString, path);
    QFETCH(QStringList, expected);
    QString error;
    bool opened = true;
    // A reader blocked on a FIFO is released by the guard, and the row fails.
    QVERIFY2(!blocksOnFifo(path, [&] { opened = Pt2Reader::open(path, &error).has_value(); }), "Pt2Reader::open blocked");
    QVERIFY(!opened);
    QVERIFY2(error.startsWith(path), qPrintable(error)); // names the file first
    for (const QString &e : expected)
        QVERIFY2(error.contains(e), qPrintable(QStringLiteral("'%1' not in: %2").arg(e, error)));
    // a null error pointer is allowed too
    QVERIFY(!Pt2Reader::open(path, nullptr));
}

// Integers written as such keep their exact value up to the qint64 limits; a dict
// key in in_spec that is no 64-bit integer gets no made-up key path.
void TstPt2Reader::integersAtTheLimits()
{
    const QString limits = writeJsonVariant(QStringLiteral("limits"), [](QJsonObject &root) {
        QJsonObject r = root[QStringLiteral("range_constraints")].toObject();
        r[QStringLiteral("s5")] = QJsonObject{{QStringLiteral("min_val"), std::numeric_limits<qint64>::min()},
                                              {QStringLiteral("max_val"), std::numeric_limits<qint64>::max()}};
        root[QStringLiteral("range_constraints")] = r;
    });
    QString error;
    auto p = Pt2Reader::open(limits, &error);
    QVERIFY2(p, qPrintable(error));
    const auto s5 = p->rangeOf(SymExpr::symbol(QStringLiteral("s5")));
    QVERIFY(s5);
    QCOMPARE(s5->min, std::optional<qint64>(std::numeric_limits<qint64>::min()));
    QCOMPARE(s5->max, std::optional<qint64>(std::numeric_limits<qint64>::max()));

    const QString floatKeys = writeJsonVariant(QStringLiteral("inspec-floatkeys"), [](QJsonObject &root) {
        QJsonObject gm = root[QStringLiteral("graph_module")].toObject();
        QJsonArray mcg = gm[QStringLiteral("module_call_graph")].toArray();
        QJsonObject e = mcg[0].toObject();
        QJsonObject sig = e[QStringLiteral("signature")].toObject();
        QString spec = sig[QStringLiteral("in_spec")].toString();
        const QString cache = QStringLiteral(R"("type": "demo.Cache", "context": "[\"key_cache\", \"value_cache\"]")");
        if (!spec.contains(cache))
            qFatal("the sample's in_spec changed: %s", qPrintable(spec));
        spec.replace(cache, QStringLiteral(R"("type": "builtins.dict", "context": "[1e21, 1e300]")"));
        sig[QStringLiteral("in_spec")] = spec;
        e[QStringLiteral("signature")] = sig;
        mcg[0] = e;
        gm[QStringLiteral("module_call_graph")] = mcg;
        root[QStringLiteral("graph_module")] = gm;
    });
    p = Pt2Reader::open(floatKeys, &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->warnings, QStringList{QStringLiteral("in_spec: in_spec dict at 'past_key_values': key 0 is 1e+21, not a 64-bit integer; "
                                                     "inputs have no key paths")});
    for (const Pt2UserInput &in : p->inputs)
        QVERIFY2(in.path.isEmpty(), qPrintable(in.path));
}

// What is inflated and parsed is bounded: the program record by its declared size
// (checked before inflating), the part parsed into a DOM by its own limit, for
// which the graph's nodes (most of a real program, unused here) do not count.
void TstPt2Reader::inflatedSizeLimits()
{
    // 2 MB of nodes in front of the sample's interface.
    const QString bigNodes = writeJsonVariant(QStringLiteral("big-nodes"), [](QJsonObject &root) {
        QJsonObject gm = root[QStringLiteral("graph_module")].toObject();
        QJsonObject graph = gm[QStringLiteral("graph")].toObject();
        QJsonArray nodes = graph[QStringLiteral("nodes")].toArray();
        const QJsonObject filler{{QStringLiteral("target"), QStringLiteral("torch.ops.aten.add.Tensor")},
                                 {QStringLiteral("metadata"), QJsonObject{{QStringLiteral("stack_trace"), QString(200, QLatin1Char('x'))}}}};
        for (int i = 0; i < 8000; ++i)
            nodes.append(filler);
        graph[QStringLiteral("nodes")] = nodes;
        gm[QStringLiteral("graph")] = graph;
        root[QStringLiteral("graph_module")] = gm;
    });
    QString error;
    Pt2ReadLimits small;
    small.programJsonBytes = 1 << 20;
    small.interfaceJsonBytes = 64 << 10;
    QVERIFY(!Pt2Reader::open(bigNodes, &error, small));
    QVERIFY2(error.startsWith(bigNodes + QStringLiteral(": serialized_exported_program.json: record inflates to ")), qPrintable(error));
    QVERIFY2(error.endsWith(QStringLiteral(" bytes, more than the 1048576 this reader accepts")), qPrintable(error));
    // Within the record's limit, the nodes do not count against the interface's.
    small.programJsonBytes = 8 << 20;
    auto p = Pt2Reader::open(bigNodes, &error, small);
    QVERIFY2(p, qPrintable(error));
    checkSampleProgram(*p);

    // Values of tensors the signature does not name (a real graph's intermediate
    // tensors, most of tensor_values) are skipped like the nodes: 5000 of them do not
    // count against the limit.
    const QString bigValues = writeJsonVariant(QStringLiteral("big-values"), [](QJsonObject &root) {
        QJsonObject gm = root[QStringLiteral("graph_module")].toObject();
        QJsonObject graph = gm[QStringLiteral("graph")].toObject();
        QJsonObject values = graph[QStringLiteral("tensor_values")].toObject();
        for (int i = 0; i < 5000; ++i)
            values.insert(QStringLiteral("unused_%1").arg(i), QJsonObject{{QStringLiteral("dtype"), 7}});
        graph[QStringLiteral("tensor_values")] = values;
        gm[QStringLiteral("graph")] = graph;
        root[QStringLiteral("graph_module")] = gm;
    });
    p = Pt2Reader::open(bigValues, &error, small);
    QVERIFY2(p, qPrintable(error));
    checkSampleProgram(*p);

    // So are keys this reader does not know, at any level: 2 x 200 KB of `{"":[[]]},`,
    // a few MB as written indented (66 MB of it took 2.5 GB as a DOM).
    QByteArray junk;
    for (int i = 0; i < 20000; ++i)
        junk += i ? ",{\"\":[[]]}" : "{\"\":[[]]}";
    QJsonParseError pe;
    const QJsonArray junkArray = QJsonDocument::fromJson("[" + junk + "]", &pe).array();
    QCOMPARE(junkArray.size(), 20000);
    const QString unknownKeys = writeJsonVariant(QStringLiteral("unknown-keys"), [&](QJsonObject &root) {
        root[QStringLiteral("newer_torch_key")] = junkArray;
        QJsonObject gm = root[QStringLiteral("graph_module")].toObject();
        gm[QStringLiteral("metadata")] = QJsonObject{{QStringLiteral("junk"), junkArray}};
        root[QStringLiteral("graph_module")] = gm;
    });
    p = Pt2Reader::open(unknownKeys, &error, small);
    QVERIFY2(p, qPrintable(error));
    checkSampleProgram(*p);

    // What the reader parses is bounded: 100 KB more of module call graph entries
    // (kept: the reader looks for the root call among them).
    const QString bigCallGraph = writeJsonVariant(QStringLiteral("big-call-graph"), [](QJsonObject &root) {
        QJsonObject gm = root[QStringLiteral("graph_module")].toObject();
        QJsonArray calls = gm[QStringLiteral("module_call_graph")].toArray();
        for (int i = 0; i < 5000; ++i)
            calls.append(QJsonObject{{QStringLiteral("fqn"), QStringLiteral("layers.%1").arg(i)}, {QStringLiteral("signature"), QJsonValue()}});
        gm[QStringLiteral("module_call_graph")] = calls;
        root[QStringLiteral("graph_module")] = gm;
    });
    const QString interfaceIs = QStringLiteral(": serialized_exported_program.json: the program's interface (the JSON this reader "
                                               "parses: the signature, the values of the tensors it names, ranges, versions, "
                                               "module call graph) ");
    QVERIFY(!Pt2Reader::open(bigCallGraph, &error, small));
    QVERIFY2(error.startsWith(bigCallGraph + interfaceIs + QStringLiteral("is ")), qPrintable(error));
    QVERIFY2(error.endsWith(QStringLiteral(" bytes, more than the 65536 this reader parses")), qPrintable(error));

    // And counted in elements, not only bytes: with the default limits, 2.1 M empty
    // lists (4 MB of text, hundreds of MB as a DOM) inside a member the reader keeps.
    QByteArray lists = "[";
    lists.reserve(4400000);
    for (int i = 0; i < 2100000; ++i)
        lists += i ? ",[]" : "[]";
    lists += "]";
    QByteArray manyElements = m_sampleJson;
    const QByteArray signature = "\"signature\": {";
    const qsizetype signatureAt = manyElements.indexOf(signature);
    QVERIFY(signatureAt > 0);
    manyElements.insert(signatureAt + signature.size(), "\"junk\": " + lists + ", ");
    const QString elements = m_dir.path() + QStringLiteral("/many-elements.pt2");
    QVERIFY(writeZip(elements, {{QStringLiteral("serialized_exported_program.json"), manyElements}}));
    QVERIFY(!Pt2Reader::open(elements, &error));
    QVERIFY2(error.startsWith(elements + interfaceIs + QStringLiteral("has ")), qPrintable(error));
    QVERIFY2(error.endsWith(QStringLiteral(" JSON elements, more than the 2000000 this reader parses")), qPrintable(error));

    // The default limit, on a record that says it inflates to 500 MB: refused from
    // its declared size, before anything is inflated.
    const QString bomb = m_dir.path() + QStringLiteral("/bomb.pt2");
    QVERIFY(writeZip(bomb, {{QStringLiteral("serialized_exported_program.json"), "{}"}}, true));
    {
        QFile f(bomb);
        QVERIFY(f.open(QIODevice::ReadWrite));
        QByteArray all = f.readAll();
        const int local = all.indexOf(QByteArray("PK\x03\x04", 4));
        const int central = all.indexOf(QByteArray("PK\x01\x02", 4));
        QVERIFY(local >= 0 && central > local);
        qToLittleEndian<quint32>(500000000u, all.data() + local + 22);   // local header: uncompressed size
        qToLittleEndian<quint32>(500000000u, all.data() + central + 24); // central directory: the same
        f.seek(0);
        f.write(all);
    }
    QVERIFY(!Pt2Reader::open(bomb, &error));
    QCOMPARE(error, bomb + QStringLiteral(": serialized_exported_program.json: record inflates to 500000000 bytes, "
                                          "more than the 268435456 this reader accepts"));
}

// in_spec is a JSON string inside the JSON, and its contexts strings inside that: the
// elements in them are counted too (1.2 M here, 2.4 MB of text), and key paths, which
// repeat every key above a leaf, may be at most 8 times the spec (a 100 KB key above
// 1000 leaves would make 100 M characters of paths).
void TstPt2Reader::inSpecCostIsBounded()
{
    auto withInSpec = [this](const QString &name, const QByteArray &args) {
        const QByteArray spec = "[1, {\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": ["
                                "{\"type\": \"builtins.tuple\", \"context\": \"null\", \"children_spec\": [" + args + "]}, "
                                "{\"type\": \"builtins.dict\", \"context\": \"[]\", \"children_spec\": []}]}]";
        return writeJsonVariant(name, [spec](QJsonObject &root) {
            QJsonObject gm = root[QStringLiteral("graph_module")].toObject();
            QJsonArray calls = gm[QStringLiteral("module_call_graph")].toArray();
            QJsonObject call = calls[0].toObject();
            QJsonObject signature = call[QStringLiteral("signature")].toObject();
            signature[QStringLiteral("in_spec")] = QString::fromUtf8(spec);
            call[QStringLiteral("signature")] = signature;
            calls[0] = call;
            gm[QStringLiteral("module_call_graph")] = calls;
            root[QStringLiteral("graph_module")] = gm;
        });
    };
    QByteArray lists = "[";
    for (int i = 0; i < 600000; ++i)
        lists += i ? ",[]" : "[]";
    lists += "]";
    const QString manyElements = withInSpec(QStringLiteral("in-spec-elements"),
        "{\"type\": \"builtins.dict\", \"context\": " + QJsonDocument(QJsonArray{QString::fromUtf8(lists)}).toJson(QJsonDocument::Compact).mid(1).chopped(1)
            + ", \"children_spec\": []}");
    QString error;
    auto p = Pt2Reader::open(manyElements, &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->warnings, QStringList{QStringLiteral("in_spec: in_spec and its contexts hold more than 1000000 JSON elements; "
                                                     "inputs have no key paths")});

    QByteArray leaves;
    for (int i = 0; i < 1000; ++i)
        leaves += i ? ", {\"type\": null, \"context\": null, \"children_spec\": []}" : "{\"type\": null, \"context\": null, \"children_spec\": []}";
    const QByteArray key(100000, 'k');
    const QString longPaths = withInSpec(QStringLiteral("in-spec-paths"),
        "{\"type\": \"builtins.dict\", \"context\": \"[\\\"" + key + "\\\"]\", \"children_spec\": ["
        "{\"type\": \"builtins.list\", \"context\": \"null\", \"children_spec\": [" + leaves + "]}]}");
    p = Pt2Reader::open(longPaths, &error);
    QVERIFY2(p, qPrintable(error));
    QCOMPARE(p->warnings, QStringList{QStringLiteral("in_spec: in_spec's key paths would be longer than 8 times the spec; "
                                                     "inputs have no key paths")});
}

void TstPt2Reader::mapping()
{
    const auto p = Pt2Reader::open(samplePath(), nullptr);
    QVERIFY(p);
    const QStringList kv{QStringLiteral("batch"), QStringLiteral("static"), QStringLiteral("past"), QStringLiteral("static")};
    const QHash<QString, QStringList> dims{{QStringLiteral("input_ids"), {QStringLiteral("batch"), QStringLiteral("seq")}},
                                           {QStringLiteral("attention_mask"), {QStringLiteral("batch"), QStringLiteral("total")}},
                                           {kSampleLeaves.at(2), kv}, {kSampleLeaves.at(3), kv},
                                           {kSampleLeaves.at(4), kv}, {kSampleLeaves.at(5), kv}};
    const Pt2DimMapping m = Pt2DimMapper::map(*p, kSampleLeaves, dims);
    QCOMPARE(m.inputs.size(), 6);
    for (const auto &in : m.inputs) {
        QCOMPARE(in.matchedBy, QStringLiteral("path"));
        QCOMPARE(in.leafPath, p->inputs.at(in.input).path);
        QCOMPARE(in.dims.size(), p->inputs.at(in.input).tensor.sizes.size());
    }
    const QMap<QString, QString> expected{{QStringLiteral("s0"), QStringLiteral("batch")}, {QStringLiteral("s1"), QStringLiteral("seq")},
                                          {QStringLiteral("s3"), QStringLiteral("total")}, {QStringLiteral("s5"), QStringLiteral("past")},
                                          {QStringLiteral("s6"), QStringLiteral("batch")}, {QStringLiteral("s7"), QStringLiteral("past")}};
    QCOMPARE(m.symbolToDim, expected);
    // torch kept the key and value caches' batch and past apart
    QCOMPARE(m.dimToSymbols.value(QStringLiteral("batch")), (QStringList{QStringLiteral("s0"), QStringLiteral("s6")}));
    QCOMPARE(m.dimToSymbols.value(QStringLiteral("past")), (QStringList{QStringLiteral("s5"), QStringLiteral("s7")}));
    QVERIFY(m.symbolConflicts.isEmpty());
    QVERIFY2(m.problems.isEmpty(), qPrintable(m.problems.join(QLatin1Char('\n'))));
    QVERIFY(m.unmatchedLeaves.isEmpty());
    QCOMPARE(m.inputs.at(2).dims.at(1).status, Pt2DimMapping::Dim::Status::Static);
    QCOMPARE(m.inputs.at(2).dims.at(2).status, Pt2DimMapping::Dim::Status::Symbolic);
}

void TstPt2Reader::mappingSpecializedAndConflicts()
{
    const auto p = Pt2Reader::open(samplePath(), nullptr);
    QVERIFY(p);
    // heads named but static in the program; input_ids' batch named differently from the
    // caches' (torch found them equal: one symbol); attention_mask dim 1 said static.
    const QStringList kv{QStringLiteral("batch"), QStringLiteral("heads"), QStringLiteral("past"), QStringLiteral("static")};
    const QHash<QString, QStringList> dims{{QStringLiteral("input_ids"), {QStringLiteral("b2"), QStringLiteral("seq")}},
                                           {QStringLiteral("attention_mask"), {QStringLiteral("batch"), QStringLiteral("static")}},
                                           {kSampleLeaves.at(2), kv}, {kSampleLeaves.at(3), kv},
                                           {kSampleLeaves.at(4), {QStringLiteral("batch"), QStringLiteral("dynamic"),
                                                                  QStringLiteral("auto"), QStringLiteral("static")}}};
    const Pt2DimMapping m = Pt2DimMapper::map(*p, kSampleLeaves, dims);
    QCOMPARE(m.inputs.at(2).dims.at(1).status, Pt2DimMapping::Dim::Status::Specialized);
    QCOMPARE(m.inputs.at(4).dims.at(1).status, Pt2DimMapping::Dim::Status::Specialized); // Dim.DYNAMIC
    QCOMPARE(m.inputs.at(4).dims.at(2).status, Pt2DimMapping::Dim::Status::Symbolic);    // auto, unnamed
    QCOMPARE(m.inputs.at(1).dims.at(1).status, Pt2DimMapping::Dim::Status::UnexpectedDynamic);
    QCOMPARE(m.inputs.at(5).dims.at(0).status, Pt2DimMapping::Dim::Status::UnexpectedDynamic); // no entry given
    QCOMPARE(m.symbolConflicts.value(QStringLiteral("s0")), (QStringList{QStringLiteral("b2"), QStringLiteral("batch")}));
    QCOMPARE(m.symbolToDim.value(QStringLiteral("s0")), QStringLiteral("b2"));
    QVERIFY(!m.symbolToDim.contains(QStringLiteral("s7"))); // only auto / nothing there
    const QString problems = m.problems.join(QLatin1Char('\n'));
    QVERIFY2(problems.contains(QStringLiteral("past_key_values.key_cache[0][1]: heads was specialized to 4")), qPrintable(problems));
    QVERIFY2(problems.contains(QStringLiteral("past_key_values.value_cache[0][1]: Dim.DYNAMIC was specialized to 4")), qPrintable(problems));
    QVERIFY2(problems.contains(QStringLiteral("attention_mask[1]: s3 in the program, static in the constraints")), qPrintable(problems));
    QVERIFY2(problems.contains(QStringLiteral("s0 stands for several Dims: b2, batch")), qPrintable(problems));
}

void TstPt2Reader::mappingFallbacks()
{
    auto p = Pt2Reader::open(samplePath(), nullptr);
    QVERIFY(p);
    // Without in_spec paths: by placeholder name (capture order may differ, a None leaf
    // has no input).
    Pt2Program noPaths = *p;
    for (Pt2UserInput &in : noPaths.inputs)
        in.path.clear();
    QStringList leaves = kSampleLeaves;
    std::reverse(leaves.begin(), leaves.end());
    leaves << QStringLiteral("use_cache");
    QHash<QString, QStringList> dims{{QStringLiteral("past_key_values.value_cache[1]"),
                                      {QStringLiteral("batch"), QStringLiteral("static"), QStringLiteral("past"), QStringLiteral("static")}}};
    Pt2DimMapping m = Pt2DimMapper::map(noPaths, leaves, dims);
    for (const auto &in : m.inputs)
        QCOMPARE(in.matchedBy, QStringLiteral("name"));
    QCOMPARE(m.inputs.at(5).leafPath, QStringLiteral("past_key_values.value_cache[1]"));
    QCOMPARE(m.symbolToDim.value(QStringLiteral("s6")), QStringLiteral("batch"));
    QCOMPARE(m.unmatchedLeaves, QStringList{QStringLiteral("use_cache")});

    // Names that match nothing: by position when the counts agree.
    Pt2Program renamed = noPaths;
    for (int i = 0; i < renamed.inputs.size(); ++i)
        renamed.inputs[i].name = QStringLiteral("arg%1_1").arg(i);
    m = Pt2DimMapper::map(renamed, kSampleLeaves,
                         {{QStringLiteral("attention_mask"), {QStringLiteral("batch"), QStringLiteral("total")}}});
    for (int i = 0; i < m.inputs.size(); ++i) {
        QCOMPARE(m.inputs.at(i).matchedBy, QStringLiteral("position"));
        QCOMPARE(m.inputs.at(i).leafPath, kSampleLeaves.at(i));
    }
    QCOMPARE(m.symbolToDim.value(QStringLiteral("s3")), QStringLiteral("total"));

    // ...and unmatched (with a problem per input) when they do not.
    m = Pt2DimMapper::map(renamed, kSampleLeaves.mid(0, 3), {});
    QCOMPARE(m.unmatchedLeaves.size(), 3);
    QVERIFY(m.problems.join(QLatin1Char('\n')).contains(QStringLiteral("program input arg0_1 matches none")));
}

void TstPt2Reader::json()
{
    const auto p = Pt2Reader::open(samplePath(), nullptr);
    QVERIFY(p);
    const QJsonObject o = Pt2Json::toJson(*p);
    QCOMPARE(o.value(QStringLiteral("layout")).toString(), QStringLiteral("legacy"));
    const QJsonObject k0 = o.value(QStringLiteral("inputs")).toArray().at(2).toObject();
    QCOMPARE(k0.value(QStringLiteral("path")).toString(), QStringLiteral("past_key_values.key_cache[0]"));
    QCOMPARE(k0.value(QStringLiteral("sizes")).toArray(), (QJsonArray{QStringLiteral("s0"), 4, QStringLiteral("s5"), 8}));
    QCOMPARE(k0.value(QStringLiteral("size_hints")).toArray(), (QJsonArray{2, 4, 5, 8}));
    const QJsonObject s3 = o.value(QStringLiteral("symbols")).toObject().value(QStringLiteral("s3")).toObject();
    QCOMPARE(s3.value(QStringLiteral("min")).toInt(), 0);
    QCOMPARE(s3.value(QStringLiteral("max")).toInt(), 8192);
    QCOMPARE(s3.value(QStringLiteral("uses")).toArray().size(), 1);
    QCOMPARE(o.value(QStringLiteral("range_constraints")).toObject().size(), 6);
}

DIMSCOPE_GUILESS_TEST_MAIN(TstPt2Reader)
#include "tst_pt2reader.moc"
