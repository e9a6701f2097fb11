// SPDX-License-Identifier: GPL-3.0-or-later
// dimscope-cli inspect: human output, --json schema, errors and exit codes.
#include "benchcapture.h"
#include "hostilefiles.h"
#include "safetensorswriter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include "deterministictestmain.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

using namespace dimscope::test;
using dimscope::test::BenchCaptureShape;

namespace {

struct Run {
    int exitCode = -1;
    QString out, err;
};

Run cli(const QStringList &args, int timeoutMs = 60000)
{
    QProcess p;
    p.start(QStringLiteral(DIMSCOPE_CLI), QStringList{QStringLiteral("inspect")} + args);
    Run r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.exitCode = p.exitCode();
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

// Runs the CLI with stdout to /dev/null; returns its peak resident memory in KB
// (from wait4, for this child alone), or -1 when it fails.
qint64 peakRssKb(const QStringList &args)
{
    QVector<QByteArray> storage{QByteArray(DIMSCOPE_CLI)};
    for (const QString &a : args)
        storage << a.toLocal8Bit();
    QVector<char *> argv;
    for (QByteArray &a : storage)
        argv << a.data();
    argv << nullptr;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, argv.first(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0)
        return -1;
    int status = 0;
    struct rusage usage {};
    if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    return qint64(usage.ru_maxrss);
}

QJsonObject leafNode(const QString &tensor, const QVector<qint64> &shape, const QString &path)
{
    return QJsonObject{{QStringLiteral("kind"), QStringLiteral("tensor")}, {QStringLiteral("tensor"), tensor},
                       {QStringLiteral("dtype"), QStringLiteral("I64")}, {QStringLiteral("shape"), jsonShape(shape)},
                       {QStringLiteral("device"), QStringLiteral("cpu")}, {QStringLiteral("path"), path}};
}

// Three calls of (input_ids, attention_mask): 2x5, 2x1, 2x1 / 2x5, 2x6, 2x7; call 2 has no mask.
QByteArray fixture()
{
    const QVector<QVector<qint64>> ids{{2, 5}, {2, 1}, {2, 1}};
    const QVector<QVector<qint64>> masks{{2, 5}, {2, 6}, {}};
    QVector<RawTensor> tensors;
    QJsonArray calls;
    for (int c = 0; c < 3; ++c) {
        QJsonArray keys{QStringLiteral("input_ids")};
        const QString idName = QStringLiteral("c%1/in/0").arg(c);
        tensors.append({idName, QStringLiteral("I64"), ids[c], QByteArray(int(ids[c][0] * ids[c][1] * 8), '\1')});
        QJsonArray children{leafNode(idName, ids[c], QStringLiteral("input_ids"))};
        QJsonArray missing;
        if (!masks[c].isEmpty()) {
            const QString maskName = QStringLiteral("c%1/in/1").arg(c);
            tensors.append({maskName, QStringLiteral("I64"), masks[c], QByteArray(int(masks[c][0] * masks[c][1] * 8), '\1')});
            keys.append(QStringLiteral("attention_mask"));
            children.append(leafNode(maskName, masks[c], QStringLiteral("attention_mask")));
        } else {
            missing.append(QStringLiteral("attention_mask"));
        }
        calls.append(QJsonObject{{QStringLiteral("index"), c}, {QStringLiteral("num_positional"), 1},
                                 {QStringLiteral("missing"), missing},
                                 {QStringLiteral("inputs"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("dict")}, {QStringLiteral("keys"), keys}, {QStringLiteral("children"), children}}}});
    }
    const QJsonObject manifest{
        {QStringLiteral("format"), QStringLiteral("dimscope.capture")}, {QStringLiteral("version"), 1},
        {QStringLiteral("producer"), QStringLiteral("tst_inspectcommand")}, {QStringLiteral("torch_version"), QStringLiteral("2.6.0")},
        {QStringLiteral("model"), QJsonObject{{QStringLiteral("class"), QStringLiteral("demo.LM")}, {QStringLiteral("signature"), QJsonArray{
            QJsonObject{{QStringLiteral("name"), QStringLiteral("input_ids")}, {QStringLiteral("kind"), QStringLiteral("POSITIONAL_OR_KEYWORD")}, {QStringLiteral("has_default"), false}},
            QJsonObject{{QStringLiteral("name"), QStringLiteral("attention_mask")}, {QStringLiteral("kind"), QStringLiteral("POSITIONAL_OR_KEYWORD")}, {QStringLiteral("has_default"), true}, {QStringLiteral("default"), QJsonValue()}}}}}},
        {QStringLiteral("calls"), calls},
    };
    return captureBytes(tensors, manifest);
}

} // namespace

class TestInspectCommand : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_path;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("lm.safetensors"));
        QVERIFY(writeFile(m_path, fixture()));
    }

    void humanOutput()
    {
        const Run r = cli({m_path});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.err.isEmpty());
        QVERIFY2(r.out.contains(QLatin1String("model:       demo.LM\n")), qPrintable(r.out));
        QVERIFY(r.out.contains(QLatin1String("signature:   forward(input_ids, attention_mask=None)\n")));
        QVERIFY(r.out.contains(QLatin1String("calls:       3\n")));
        QVERIFY(r.out.contains(QLatin1String("call 0: dict(input_ids:T7s2x5,attention_mask:T7s2x5)\n")));
        QVERIFY(r.out.contains(QLatin1String("call 2: dict(input_ids:T7s2x1)\n  missing: attention_mask; filled: -; constant kwargs: -\n")));
        QVERIFY(r.out.contains(QLatin1String("leaves: 2\n")));
        const QStringList lines = r.out.split(QLatin1Char('\n'));
        auto row = [&](const QString &path) {
            for (const QString &l : lines) {
                if (l.startsWith(path + QLatin1Char(' ')))
                    return l.simplified();
            }
            return QString();
        };
        QCOMPARE(row(QStringLiteral("input_ids")), QStringLiteral("input_ids int64 2x5 | 2x1 | 2x1"));
        QCOMPARE(row(QStringLiteral("attention_mask")), QStringLiteral("attention_mask int64 2x5 | 2x6 | -"));
    }

    void jsonOutput()
    {
        const Run r = cli({m_path, QStringLiteral("--json")});
        QCOMPARE(r.exitCode, 0);
        QJsonParseError pe;
        const QJsonObject o = QJsonDocument::fromJson(r.out.toUtf8(), &pe).object();
        QCOMPARE(pe.error, QJsonParseError::NoError);
        QCOMPARE(o.value(QStringLiteral("schema")).toString(), QStringLiteral("dimscope.inspect"));
        QCOMPARE(o.value(QStringLiteral("schema_version")).toInt(), 1);
        QCOMPARE(o.value(QStringLiteral("format_version")).toInt(), 1);
        QCOMPARE(o.value(QStringLiteral("model")).toObject().value(QStringLiteral("class")).toString(), QStringLiteral("demo.LM"));
        const QJsonArray calls = o.value(QStringLiteral("calls")).toArray();
        QCOMPARE(calls.size(), 3);
        QCOMPARE(calls.at(1).toObject().value(QStringLiteral("summary")).toString(), QStringLiteral("dict(input_ids:T7s2x1,attention_mask:T7s2x6)"));
        QCOMPARE(calls.at(2).toObject().value(QStringLiteral("missing")).toArray(), QJsonArray{QStringLiteral("attention_mask")});
        const QJsonArray leaves = o.value(QStringLiteral("leaves")).toArray();
        QCOMPARE(leaves.size(), 2);
        const QJsonObject mask = leaves.at(1).toObject();
        QCOMPARE(mask.value(QStringLiteral("path")).toString(), QStringLiteral("attention_mask"));
        QCOMPARE(mask.value(QStringLiteral("kind")).toString(), QStringLiteral("tensor"));
        QCOMPARE(mask.value(QStringLiteral("dtype")).toString(), QStringLiteral("I64"));
        QCOMPARE(mask.value(QStringLiteral("device")).toString(), QStringLiteral("cpu"));
        const QJsonArray per = mask.value(QStringLiteral("calls")).toArray();
        QCOMPARE(per.size(), 3);
        QCOMPARE(per.at(1).toObject().value(QStringLiteral("shape")).toArray(), (QJsonArray{2, 6}));
        QVERIFY(per.at(2).isNull());
        // Streamed, the text is still exactly what QJsonDocument writes.
        QCOMPARE(r.out.toUtf8(), QJsonDocument::fromJson(r.out.toUtf8()).toJson(QJsonDocument::Indented));
    }

    // --json is streamed: it costs about what the human output does (the capture
    // itself), where a QJsonDocument of it took several times the header.
    void jsonMemoryFollowsTheCapture()
    {
#if defined(__SANITIZE_ADDRESS__)
        QSKIP("under AddressSanitizer peak memory includes its quarantine of freed blocks");
#endif
        const QString big = m_dir.filePath(QStringLiteral("many-calls.safetensors"));
        BenchCaptureShape shape;
        shape.calls = 20000;
        shape.layers = 1;
        QVERIFY(writeBenchCapture(big, shape) > 0);
        QFile f(big);
        QVERIFY(f.open(QIODevice::ReadOnly));
        quint64 headerLength = 0;
        QCOMPARE(f.read(reinterpret_cast<char *>(&headerLength), 8), qint64(8));
        const qint64 headerKb = qint64(qFromLittleEndian(headerLength) / 1024);
        const qint64 human = peakRssKb({QStringLiteral("inspect"), big});
        const qint64 json = peakRssKb({QStringLiteral("inspect"), big, QStringLiteral("--json")});
        QVERIFY(human > 0 && json > 0);
        qDebug("header %lld KB; peak RSS: human %lld KB, --json %lld KB", headerKb, human, json);
        QVERIFY2(json - human < headerKb / 2, qPrintable(QStringLiteral("--json took %1 KB more than the human output (header %2 KB)")
                                                             .arg(json - human).arg(headerKb)));
    }

    void errors()
    {
        const QString bad = m_dir.filePath(QStringLiteral("bad.safetensors"));
        QVERIFY(writeFile(bad, QByteArray("\x05\0\0", 3)));
        Run r = cli({bad});
        QCOMPARE(r.exitCode, 1);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(r.err, QStringLiteral("dimscope-cli inspect: %1: file is 3 bytes long, shorter than the 8-byte safetensors header length\n").arg(bad));
        r = cli({});
        QCOMPARE(r.exitCode, 2);
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
        // A FIFO hung the CLI in open(2): it is refused at once.
        const QString fifo = m_dir.filePath(QStringLiteral("capture.fifo"));
        QVERIFY(makeFifo(fifo));
        r = cli({fifo}, 10000);
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(r.err, QStringLiteral("dimscope-cli inspect: %1: is a FIFO (named pipe), not a regular file\n").arg(fifo));
        r = cli({m_path, QStringLiteral("--yaml")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains(QLatin1String("unexpected argument '--yaml'")));
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestInspectCommand)
#include "tst_inspectcommand.moc"
