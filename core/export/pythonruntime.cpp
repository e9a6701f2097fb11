// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/pythonruntime.h"

#include "export/workerprocessgroup.h"
#include "util/buildinfo.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QStandardPaths>

#include <algorithm>

namespace dimscope {

namespace {

// The provisioned root to use, as scripts/torch-python picks it: $DIMSCOPE_TORCH_ROOT,
// else $DIMSCOPE_RUNTIMES_DIR/runtime-$DIMSCOPE_RUNTIME (sid: torch 2.14 with
// transformers; trixie: torch 2.6), else the first complete one of sid and trixie.
QString defaultTorchRoot()
{
    const QString root = qEnvironmentVariable("DIMSCOPE_TORCH_ROOT");
    if (!root.isEmpty())
        return root;
    QString dir = qEnvironmentVariable("DIMSCOPE_RUNTIMES_DIR");
    if (dir.isEmpty())
        dir = QStringLiteral("/var/cache/dimscope");
    const QString chosen = qEnvironmentVariable("DIMSCOPE_RUNTIME");
    if (!chosen.isEmpty())
        return dir + QStringLiteral("/runtime-") + chosen;
    for (const char *suite : {"sid", "trixie"}) {
        const QString candidate = dir + QStringLiteral("/runtime-") + QLatin1String(suite);
        if (QFileInfo::exists(candidate + QStringLiteral("/.dimscope-complete")))
            return candidate;
    }
    return dir + QStringLiteral("/runtime-sid");
}

// The newest python3.N in the root's usr/bin, as scripts/torch-python picks it.
QString rootPython(const QString &root)
{
    const QRegularExpression re(QStringLiteral("^python3\\.(\\d+)$"));
    QString best;
    int bestMinor = -1;
    const QStringList names = QDir(root + QStringLiteral("/usr/bin")).entryList(QDir::Files);
    for (const QString &n : names) {
        const auto m = re.match(n);
        if (m.hasMatch() && m.captured(1).toInt() > bestMinor) {
            bestMinor = m.captured(1).toInt();
            best = root + QStringLiteral("/usr/bin/") + n;
        }
    }
    return best;
}

// The root's folders its loader searches, as scripts/torch-python lists them. BLAS and
// LAPACK come first, from the folders the root's own alternatives choose (OpenBLAS):
// usr/lib/x86_64-linux-gnu/libblas.so.3 links to /etc/alternatives/..., which the
// loader would resolve on the host, loading the host's libraries into the root.
// usr/lib comes before the rest: sid installs libgloo there, and the host's older one
// must not win.
QStringList rootLibraryPath(const QString &root)
{
    QStringList libs = {root + QStringLiteral("/lib/x86_64-linux-gnu"), root + QStringLiteral("/usr/lib/x86_64-linux-gnu"),
                        root + QStringLiteral("/usr/lib")};
    for (const char *alternative : {"libblas.so.3", "liblapack.so.3"}) {
        const QString link = root + QStringLiteral("/etc/alternatives/") + QLatin1String(alternative)
                             + QStringLiteral("-x86_64-linux-gnu");
        const QString target = QFileInfo(link).isSymLink() ? QFile::symLinkTarget(link) : QString();
        const QString dir = target.startsWith(QLatin1Char('/')) ? root + QFileInfo(target).path() : QString();
        if (!dir.isEmpty() && QFileInfo(dir).isDir() && !libs.contains(dir))
            libs.prepend(dir);
    }
    for (const char *sub : {"lapack", "blas"}) {
        const QString d = root + QStringLiteral("/usr/lib/x86_64-linux-gnu/") + QLatin1String(sub);
        if (QFileInfo(d).isDir())
            libs << d;
    }
    return libs;
}

// N of python3.N in the interpreter's file name or in the name of the file it links to
// (a virtual environment's python -> /usr/bin/python3.11); -1 when neither says it.
int minorVersionOf(const QString &program)
{
    static const QRegularExpression re(QStringLiteral("^python3\\.(\\d+)$"));
    const QString path = program.contains(QLatin1Char('/')) ? program : QStandardPaths::findExecutable(program);
    if (path.isEmpty())
        return -1;
    const QFileInfo file(path);
    for (const QString &name : {file.fileName(), QFileInfo(file.canonicalFilePath()).fileName()}) {
        const auto m = re.match(name);
        if (m.hasMatch())
            return m.captured(1).toInt();
    }
    return -1;
}

// Python 3.8-3.10 have no -P. -I would do, but it also ignores PYTHONPATH (where the
// dimscope package is put), PYTHONHOME (which a provisioned root run through its
// loader needs) and the user's site-packages (where torch may be). So instead the first
// line of the program removes what `-c` puts first on sys.path, '' (the current
// folder), before anything is imported from there; site and the encodings are imported
// before it was added. (With PYTHONSAFEPATH set, 3.11+ adds nothing and this removes
// nothing.)
constexpr char kDropCurrentFolder[] = "import sys\n"
                                      "if sys.path[:1] == ['']:\n"
                                      "    del sys.path[0]\n";

} // namespace

QStringList PythonRuntime::isolatedArguments(const QString &code) const
{
    if (m_minor >= 11)
        return m_arguments + QStringList{QStringLiteral("-P"), QStringLiteral("-c"), code};
    return m_arguments + QStringList{QStringLiteral("-c"), QLatin1String(kDropCurrentFolder) + code};
}

QStringList PythonRuntime::workerArguments() const
{
    if (m_minor >= 11)
        return m_arguments + QStringList{QStringLiteral("-P"), QStringLiteral("-m"), QStringLiteral("dimscope.worker")};
    return isolatedArguments(QStringLiteral("import runpy\n"
                                            "runpy.run_module('dimscope.worker', run_name='__main__', alter_sys=True)\n"));
}

QString PythonRuntime::findPackageDir()
{
    const QString appDir = QCoreApplication::applicationDirPath();
    const QStringList candidates = {
        appDir + QStringLiteral("/../share/dimscope/python"),
        BuildInfo::sourceDir() + QStringLiteral("/python"),
    };
    for (const QString &c : candidates) {
        if (QFileInfo::exists(c + QStringLiteral("/dimscope/worker/__main__.py")))
            return QDir::cleanPath(c);
    }
    return QDir::cleanPath(candidates.last());
}

PythonRuntime PythonRuntime::fromInterpreter(const QString &python)
{
    PythonRuntime r;
    r.m_source = Source::Explicit;
    r.m_program = python;
    r.m_minor = minorVersionOf(python);
    r.m_packageDir = findPackageDir();
    return r;
}

PythonRuntime PythonRuntime::discover()
{
    const QString env = qEnvironmentVariable("DIMSCOPE_PYTHON");
    if (!env.isEmpty()) {
        PythonRuntime r = fromInterpreter(env);
        r.m_source = Source::Environment;
        return r;
    }
    const QString root = defaultTorchRoot();
    const QString py = rootPython(root);
    if (QFileInfo::exists(root + QStringLiteral("/.dimscope-complete")) && !py.isEmpty()) {
        PythonRuntime r;
        r.m_source = Source::TorchRoot;
        // Run through the root's own loader so its glibc is used, not the host's.
        r.m_program = root + QStringLiteral("/lib64/ld-linux-x86-64.so.2");
        r.m_arguments = {QStringLiteral("--library-path"), rootLibraryPath(root).join(QLatin1Char(':')), py};
        r.m_minor = minorVersionOf(py);
        r.m_pythonHome = root + QStringLiteral("/usr");
        r.m_packageDir = findPackageDir();
        return r;
    }
    PythonRuntime r;
    r.m_source = Source::Path;
    r.m_program = QStandardPaths::findExecutable(QStringLiteral("python3"));
    if (r.m_program.isEmpty())
        r.m_program = QStringLiteral("python3");
    r.m_minor = minorVersionOf(r.m_program);
    r.m_packageDir = findPackageDir();
    return r;
}

QString PythonRuntime::sourceName() const
{
    switch (m_source) {
    case Source::Environment: return QStringLiteral("DIMSCOPE_PYTHON");
    case Source::TorchRoot: return QStringLiteral("provisioned torch runtime");
    case Source::Path: return QStringLiteral("python3 on PATH");
    case Source::Explicit: return QStringLiteral("chosen interpreter");
    }
    return {};
}

QProcessEnvironment PythonRuntime::environment() const
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const QString old = env.value(QStringLiteral("PYTHONPATH"));
    env.insert(QStringLiteral("PYTHONPATH"), old.isEmpty() ? m_packageDir : m_packageDir + QLatin1Char(':') + old);
    if (!m_pythonHome.isEmpty())
        env.insert(QStringLiteral("PYTHONHOME"), m_pythonHome);
    env.insert(QStringLiteral("PYTHONUNBUFFERED"), QStringLiteral("1"));
    return env;
}

QString PythonRuntime::commandLine() const
{
    return (QStringList{m_program} + m_arguments).join(QLatin1Char(' '));
}

bool PythonRuntime::check(QString *error, QString *description, int timeoutMs) const
{
    // Isolated like the worker, in a private folder: a torch.py where dimscope was
    // started must not be what is checked (or run).
    QProcess p;
    p.setProcessEnvironment(environment());
    QString folderError;
    if (!WorkerProcessGroup::prepare(&p, &folderError)) {
        if (error)
            *error = folderError;
        return false;
    }
    const auto release = qScopeGuard([&p] { WorkerProcessGroup::release(&p); });
    const QString code = QStringLiteral(
        "import sys, torch\n"
        "v = tuple(int(x) for x in torch.__version__.split('+')[0].split('.')[:2])\n"
        "print('python %s, torch %s' % (sys.version.split()[0], torch.__version__))\n"
        "sys.exit(0 if v >= (2, 1) else 3)\n");
    p.start(m_program, isolatedArguments(code));
    if (!p.waitForStarted(timeoutMs)) {
        if (error)
            *error = QStringLiteral("cannot start %1 (%2): %3").arg(commandLine(), sourceName(), p.errorString());
        return false;
    }
    if (!p.waitForFinished(timeoutMs)) {
        WorkerProcessGroup::kill(&p);
        WorkerProcessGroup::reap(&p, 1000);
        if (error)
            *error = QStringLiteral("%1 did not answer within %2 s").arg(commandLine()).arg(timeoutMs / 1000);
        return false;
    }
    const QString out = QString::fromUtf8(p.readAllStandardOutput()).trimmed();
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        if (error) {
            const QString err = QString::fromUtf8(p.readAllStandardError()).trimmed();
            *error = p.exitCode() == 3
                ? QStringLiteral("%1 (%2) has %3; dimscope needs torch >= 2.1").arg(commandLine(), sourceName(), out)
                : QStringLiteral("%1 (%2) cannot import torch: %3").arg(commandLine(), sourceName(), err.section(QLatin1Char('\n'), -1));
        }
        return false;
    }
    if (description)
        *description = out;
    return true;
}

} // namespace dimscope
