// SPDX-License-Identifier: GPL-3.0-or-later
// The interpreter a provisioned root is run as (PythonRuntime::discover): through the
// root's own loader, whose --library-path makes the root's libraries win over the host's.
// BLAS and LAPACK are reached through links to /etc/alternatives, which the loader would
// resolve on the host: the root's own choice (OpenBLAS) is listed first instead.
#include "export/pythonruntime.h"

#include "deterministictestmain.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <algorithm>

using namespace dimscope;

namespace {
bool touch(const QString &path)
{
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    return f.open(QIODevice::WriteOnly);
}

// The files discover() looks for in a provisioned root at `root`, its interpreter
// usr/bin/`python`.
bool makeRoot(const QString &root, const QString &python)
{
    return touch(root + QStringLiteral("/.dimscope-complete")) && touch(root + QStringLiteral("/lib64/ld-linux-x86-64.so.2"))
           && touch(root + QStringLiteral("/usr/bin/") + python) && QDir().mkpath(root + QStringLiteral("/etc/alternatives"));
}

// Runs `body` with the environment variables of discover() set as given (empty: unset),
// restoring them after.
template<typename Body>
void withDiscoveryEnvironment(const QString &torchRoot, Body body)
{
    const QByteArray names[] = {"DIMSCOPE_PYTHON", "DIMSCOPE_TORCH_ROOT"};
    QList<QByteArray> saved;
    for (const QByteArray &n : names)
        saved << qgetenv(n.constData());
    qunsetenv("DIMSCOPE_PYTHON");
    if (torchRoot.isEmpty())
        qunsetenv("DIMSCOPE_TORCH_ROOT");
    else
        qputenv("DIMSCOPE_TORCH_ROOT", torchRoot.toLocal8Bit());
    body();
    for (int i = 0; i < 2; ++i) {
        if (saved[i].isNull())
            qunsetenv(names[i].constData());
        else
            qputenv(names[i].constData(), saved[i]);
    }
}
} // namespace

class TstPythonRuntime : public QObject
{
    Q_OBJECT
private slots:
    void theRootsOwnBlasComesFirst();
    void aRootWithoutAlternativesKeepsItsFolders();
    void theProvisionedInterpreterMapsOnlyTheRootsLibraries();
};

void TstPythonRuntime::theRootsOwnBlasComesFirst()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString root = dir.path();
    QVERIFY(makeRoot(root, QStringLiteral("python3.14")));
    QVERIFY(touch(root + QStringLiteral("/usr/lib/x86_64-linux-gnu/openblas-openmp/libblas.so.3")));
    QVERIFY(QDir().mkpath(root + QStringLiteral("/usr/lib/x86_64-linux-gnu/blas")));
    // As Debian's update-alternatives writes them: absolute, meant inside the root.
    QVERIFY(QFile::link(QStringLiteral("/usr/lib/x86_64-linux-gnu/openblas-openmp/libblas.so.3"),
                        root + QStringLiteral("/etc/alternatives/libblas.so.3-x86_64-linux-gnu")));
    QVERIFY(QFile::link(QStringLiteral("/usr/lib/x86_64-linux-gnu/openblas-openmp/liblapack.so.3"),
                        root + QStringLiteral("/etc/alternatives/liblapack.so.3-x86_64-linux-gnu")));
    withDiscoveryEnvironment(root, [&] {
        const PythonRuntime runtime = PythonRuntime::discover();
        QCOMPARE(runtime.source(), PythonRuntime::Source::TorchRoot);
        QCOMPARE(runtime.program(), root + QStringLiteral("/lib64/ld-linux-x86-64.so.2"));
        const QStringList args = runtime.arguments();
        QCOMPARE(args.size(), 3);
        QCOMPARE(args[0], QStringLiteral("--library-path"));
        QCOMPARE(args[1].split(QLatin1Char(':')),
                 QStringList({root + QStringLiteral("/usr/lib/x86_64-linux-gnu/openblas-openmp"), root + QStringLiteral("/lib/x86_64-linux-gnu"),
                              root + QStringLiteral("/usr/lib/x86_64-linux-gnu"), root + QStringLiteral("/usr/lib"),
                              root + QStringLiteral("/usr/lib/x86_64-linux-gnu/blas")}));
        QCOMPARE(args[2], root + QStringLiteral("/usr/bin/python3.14"));
    });
}

void TstPythonRuntime::aRootWithoutAlternativesKeepsItsFolders()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString root = dir.path();
    QVERIFY(makeRoot(root, QStringLiteral("python3.13")));
    QVERIFY(QDir().mkpath(root + QStringLiteral("/usr/lib/x86_64-linux-gnu/lapack")));
    // A choice whose folder the root does not have is not listed: the host's would be.
    QVERIFY(QFile::link(QStringLiteral("/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3"),
                        root + QStringLiteral("/etc/alternatives/libblas.so.3-x86_64-linux-gnu")));
    withDiscoveryEnvironment(root, [&] {
        const QStringList args = PythonRuntime::discover().arguments();
        QCOMPARE(args.value(1).split(QLatin1Char(':')),
                 QStringList({root + QStringLiteral("/lib/x86_64-linux-gnu"), root + QStringLiteral("/usr/lib/x86_64-linux-gnu"), root + QStringLiteral("/usr/lib"),
                              root + QStringLiteral("/usr/lib/x86_64-linux-gnu/lapack")}));
    });
}

void TstPythonRuntime::theProvisionedInterpreterMapsOnlyTheRootsLibraries()
{
    withDiscoveryEnvironment(QString(), [&] {
        const PythonRuntime runtime = PythonRuntime::discover();
        if (runtime.source() != PythonRuntime::Source::TorchRoot)
            QSKIP("no provisioned runtime (scripts/setup)");
        const QString loader = QStringLiteral("/lib64/ld-linux-x86-64.so.2");
        QVERIFY(runtime.program().endsWith(loader));
        const QString root = runtime.program().chopped(loader.size());
        // torch with its BLAS and LAPACK, as the worker imports it; then every shared
        // object the process has mapped.
        const QString code = QStringLiteral(
            "import torch\n"
            "torch.mm(torch.ones(64, 64), torch.ones(64, 64))\n"
            "for line in open('/proc/self/maps'):\n"
            "    path = line.split()[-1]\n"
            "    if '.so' in path.rsplit('/', 1)[-1]:\n"
            "        print(path)\n");
        QProcess p;
        p.setProcessEnvironment(runtime.environment());
        p.start(runtime.program(), runtime.isolatedArguments(code));
        QVERIFY2(p.waitForFinished(120000), qPrintable(p.errorString()));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        const QString canonicalRoot = QDir(root).canonicalPath();
        QStringList outside;
        QStringList mapped;
        for (const QString &line : QString::fromLocal8Bit(p.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts)) {
            const QString path = QFileInfo(line).canonicalFilePath();
            mapped << path;
            if (!path.startsWith(canonicalRoot + QLatin1Char('/')))
                outside << line;
        }
        QVERIFY2(mapped.size() > 10, qPrintable(mapped.join(QLatin1Char('\n'))));
        QVERIFY2(std::any_of(mapped.begin(), mapped.end(), [](const QString &m) { return m.contains(QLatin1String("libblas")); })
                     || std::any_of(mapped.begin(), mapped.end(), [](const QString &m) { return m.contains(QLatin1String("openblas")); }),
                 qPrintable(mapped.join(QLatin1Char('\n'))));
        QVERIFY2(outside.isEmpty(), qPrintable(QStringLiteral("mapped from outside ") + canonicalRoot + QStringLiteral(":\n") + outside.join(QLatin1Char('\n'))));
    });
}

DIMSCOPE_GUILESS_TEST_MAIN(TstPythonRuntime)
#include "tst_pythonruntime.moc"
