// SPDX-License-Identifier: GPL-3.0-or-later
// The tensor engine plugin (capture/tensorengine.h) when nothing needs it and when it
// cannot be loaded: a start that needs no tensor math never maps LibTorch (in process
// and in dimscope-cli), and a missing or bogus plugin makes the statistics report its
// path and the loader's message while reading and analysing captures still work. The
// loaded engine is tst_tensorstats'.
#include "hostilefiles.h"
#include "processmaps.h"
#include "safetensorswriter.h"

#include "capture/capturereader.h"
#include "capture/tensorengine.h"
#include "capture/tensorstats.h"
#include "inference/captureanalysis.h"

#include <QProcess>
#include <QTemporaryDir>
#include "deterministictestmain.h"

using namespace dimscope;
using namespace dimscope::test;

namespace {

QByteArray oneTensorCapture()
{
    const RawTensor t{QStringLiteral("x"), QStringLiteral("F32"), {3}, bytesOf<float>({1.0f, 2.0f, 6.0f})};
    const QJsonObject manifest{
        {QStringLiteral("format"), QStringLiteral("dimscope.capture")}, {QStringLiteral("version"), 1},
        {QStringLiteral("model"), QJsonObject{{QStringLiteral("class"), QStringLiteral("m")}, {QStringLiteral("signature"), QJsonArray()}}},
        {QStringLiteral("calls"), QJsonArray{QJsonObject{{QStringLiteral("index"), 0},
            {QStringLiteral("inputs"), QJsonObject{{QStringLiteral("kind"), QStringLiteral("dict")}, {QStringLiteral("keys"), QJsonArray{t.name}},
                {QStringLiteral("children"), QJsonArray{QJsonObject{{QStringLiteral("kind"), QStringLiteral("tensor")}, {QStringLiteral("tensor"), t.name},
                    {QStringLiteral("dtype"), t.dtype}, {QStringLiteral("shape"), jsonShape(t.shape)}, {QStringLiteral("path"), t.name}}}}}}}}},
    };
    return captureBytes({t}, manifest);
}

struct CliRun {
    int exitCode = -1;
    QByteArray out, err;
};

// dimscope-cli with the dynamic loader listing every library it loads (LD_DEBUG=files,
// on stderr) and the given environment additions.
CliRun runCli(const QStringList &args, const QStringList &env = {})
{
    QProcess p;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    e.insert(QStringLiteral("LD_DEBUG"), QStringLiteral("files"));
    for (const QString &kv : env)
        e.insert(kv.section(QLatin1Char('='), 0, 0), kv.section(QLatin1Char('='), 1));
    p.setProcessEnvironment(e);
    p.start(QStringLiteral(DIMSCOPE_CLI), args);
    CliRun r;
    if (!p.waitForFinished(120000))
        return r;
    r.exitCode = p.exitCode();
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

} // namespace

class TestTensorEngine : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_capturePath;
    QString m_bogus;

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_capturePath = m_dir.filePath(QStringLiteral("one.safetensors"));
        QVERIFY(writeFile(m_capturePath, oneTensorCapture()));
        m_bogus = m_dir.filePath(QStringLiteral("libdimscope_torchengine.so"));
        QVERIFY(writeFile(m_bogus, QByteArrayLiteral("not a shared library\n")));
    }

    // Reading and analysing a capture is no tensor math: the plugin stays unloaded.
    void notLoadedWithoutTensorMath()
    {
        QString error;
        const std::optional<CaptureAnalysis> a = CaptureAnalysis::open(m_capturePath, &error);
        QVERIFY2(a, qPrintable(error));
        QCOMPARE(a->capture.calls.size(), 1);
        QVERIFY(!TensorEngine::isLoaded());
        QVERIFY(!processMaps("libtorch"));
    }

    // In the build tree the plugin is found without $DIMSCOPE_TORCH_ENGINE.
    void pluginIsFound()
    {
        if (!qEnvironmentVariableIsEmpty("DIMSCOPE_TORCH_ENGINE"))
            QSKIP("DIMSCOPE_TORCH_ENGINE is set");
        QVERIFY2(QFileInfo(TensorEngine::pluginPath()).isFile(), qPrintable(TensorEngine::candidatePaths().join(QStringLiteral(", "))));
        QVERIFY(TensorEngine::pluginPath().endsWith(QLatin1String("/libdimscope_torchengine.so")));
    }

    void loadFromMissingFile()
    {
        const QString missing = m_dir.filePath(QStringLiteral("nowhere/libdimscope_torchengine.so"));
        QString error;
        QVERIFY(!TensorEngine::loadFrom(missing, &error));
        QVERIFY2(error.contains(missing) && error.contains(QLatin1String("no such file")), qPrintable(error));
    }

    // Not an ELF file: QPluginLoader's own message, after the path.
    void loadFromBogusFile()
    {
        QString error;
        QVERIFY(!TensorEngine::loadFrom(m_bogus, &error));
        const QString prefix = QStringLiteral("the tensor engine (LibTorch) could not be loaded from %1: ").arg(m_bogus);
        QVERIFY2(error.startsWith(prefix) && error.size() > prefix.size() + 5, qPrintable(error));
        qInfo("%s", qPrintable(error));
        QVERIFY(!processMaps("libtorch"));
    }

    // A real shared library that is no Qt plugin (the wrong file under the plugin's name).
    void loadFromSharedLibraryThatIsNoPlugin()
    {
        QFile maps(QStringLiteral("/proc/self/maps"));
        QVERIFY(maps.open(QIODevice::ReadOnly));
        QString library;
        for (const QByteArray &line : maps.readAll().split('\n')) {
            const int slash = line.indexOf('/');
            if (slash > 0 && line.contains("libstdc++.so")) {
                library = QString::fromUtf8(line.mid(slash));
                break;
            }
        }
        if (library.isEmpty())
            QSKIP("libstdc++ is not a shared library here");
        QString error;
        QVERIFY(!TensorEngine::loadFrom(library, &error));
        QVERIFY2(error.startsWith(QStringLiteral("the tensor engine (LibTorch) could not be loaded from %1: ").arg(library)), qPrintable(error));
        qInfo("%s", qPrintable(error));
    }

    // With $DIMSCOPE_TORCH_ENGINE at a bogus file every statistic fails with the path and
    // the loader's message; the first failure is kept (no second try per statistic), and
    // the capture is still read and analysed.
    void statisticsReportAnUnloadablePlugin()
    {
        qputenv("DIMSCOPE_TORCH_ENGINE", m_bogus.toLocal8Bit());
        QCOMPARE(TensorEngine::pluginPath(), m_bogus);
        QString error;
        std::optional<CaptureAnalysis> a = CaptureAnalysis::open(m_capturePath, &error);
        QVERIFY2(a, qPrintable(error));
        const TensorStats s = computeTensorStats(a->capture, 0, 0);
        QVERIFY(!s.ok);
        QVERIFY(!s.cancelled);
        QCOMPARE(s.numel, qint64(3));
        QVERIFY2(s.error.startsWith(QStringLiteral("the tensor engine (LibTorch) could not be loaded from %1: ").arg(m_bogus)), qPrintable(s.error));
        QVERIFY(!TensorEngine::isLoaded());
        QVERIFY(!TensorEngine::get());
        QCOMPARE(computeTensorStats(a->capture, 0, 0).error, s.error);
        QVERIFY(!processMaps("libtorch"));
        // The rest works: the analysis again, after the failure.
        a = CaptureAnalysis::open(m_capturePath, &error);
        QVERIFY2(a, qPrintable(error));
        qunsetenv("DIMSCOPE_TORCH_ENGINE");
    }

    // dimscope-cli --help, inspect and analyze load neither the plugin nor LibTorch,
    // and work when the plugin cannot be loaded.
    void cliNeverLoadsLibTorch_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("--help") << QStringList{QStringLiteral("--help")};
        QTest::newRow("--version") << QStringList{QStringLiteral("--version")};
        QTest::newRow("inspect") << QStringList{QStringLiteral("inspect")};
        QTest::newRow("analyze") << QStringList{QStringLiteral("analyze")};
        QTest::newRow("analyze --format spec") << QStringList{QStringLiteral("analyze"), QStringLiteral("--format"), QStringLiteral("spec")};
    }

    void cliNeverLoadsLibTorch()
    {
        QFETCH(QStringList, args);
        if (args.size() >= 1 && args.first() != QLatin1String("--help") && args.first() != QLatin1String("--version"))
            args.insert(1, m_capturePath);
        for (const QStringList &env : {QStringList{}, QStringList{QStringLiteral("DIMSCOPE_TORCH_ENGINE=") + m_bogus}}) {
            const CliRun r = runCli(args, env);
            QVERIFY2(r.exitCode == 0, qPrintable(QString::fromUtf8(r.err.right(2000))));
            QVERIFY(!r.out.isEmpty());
            QVERIFY2(r.err.contains("file=libQt6Core.so"), "LD_DEBUG=files listed no library"); // the check below means something
            QVERIFY2(!r.err.contains("libtorch"), qPrintable(QString::fromUtf8(r.err.right(2000))));
            QVERIFY(!r.err.contains("dimscope_torchengine"));
        }
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestTensorEngine)
#include "tst_tensorengine.moc"
