// SPDX-License-Identifier: GPL-3.0-or-later
#include "smalldisk.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/mount.h>
#include <unistd.h>

namespace dimscope::test {

namespace {

const char kFolderVariable[] = "DIMSCOPE_SMALL_DISK";
const char kFiller[] = "filler";
// The wrapper's exit code when the namespace was made but the tmpfs could not be mounted.
constexpr int kCannotMount = 77;

// `sh -c` inside the namespace: mount the tmpfs over $1, then run the rest.
const char kMountThenRun[] = "mount -t tmpfs -o size=64k,mode=0755 dimscope-small-disk \"$1\" || exit 77\n"
                             "shift\n"
                             "exec \"$@\"\n";

QStringList unshareArguments(bool userNamespace)
{
    // --propagation private: the mount never reaches the parent's namespace.
    QStringList args{userNamespace ? QStringLiteral("-Urm") : QStringLiteral("-m"), QStringLiteral("--propagation"),
                     QStringLiteral("private"), QStringLiteral("--"), QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                     QString::fromLatin1(kMountThenRun), QStringLiteral("sh")};
    return args;
}

struct Run {
    int exitCode = -1;
    bool started = false;
    QString output;
};

Run runInNamespace(bool userNamespace, const QString &folder, const QStringList &command)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QString::fromLatin1(kFolderVariable), folder);
    p.setProcessEnvironment(env);
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(QStringLiteral("unshare"), unshareArguments(userNamespace) + QStringList{folder} + command);
    Run run;
    run.started = p.waitForStarted(10000);
    if (!run.started) {
        run.output = p.errorString();
        return run;
    }
    p.waitForFinished(120000);
    run.output = QString::fromLocal8Bit(p.readAll());
    run.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    return run;
}

// Which namespace works here: asked once per process with `true` as the command.
int workingMode(QString *why)
{
    static int mode = -2; // -2 not asked, -1 none, 0 `unshare -m`, 1 `unshare -Urm`
    static QString reason;
    if (mode == -2) {
        QTemporaryDir probe;
        mode = -1;
        QStringList tried;
        for (bool user : {false, true}) {
            if (!user && ::geteuid() != 0)
                continue;
            const Run run = runInNamespace(user, probe.path(), {QStringLiteral("true")});
            if (run.started && run.exitCode == 0) {
                mode = user ? 1 : 0;
                break;
            }
            tried << QStringLiteral("`unshare %1` + mount -t tmpfs: %2")
                         .arg(user ? QStringLiteral("-Urm") : QStringLiteral("-m"),
                              run.started ? run.output.trimmed() : QStringLiteral("cannot start unshare (%1)").arg(run.output));
        }
        reason = tried.join(QStringLiteral("; "));
    }
    *why = reason;
    return mode;
}

} // namespace

bool SmallDisk::inside()
{
    return qEnvironmentVariableIsSet(kFolderVariable);
}

QString SmallDisk::folder()
{
    return qEnvironmentVariable(kFolderVariable);
}

SmallDisk::ChildResult SmallDisk::runCurrentTestInside()
{
    ChildResult result;
    QString why;
    const int mode = workingMode(&why);
    if (mode < 0) {
        result.skipReason = QStringLiteral("no private mount namespace with a small tmpfs can be made here, so there "
                                           "is no full disk to test on (%1)")
                                .arg(why);
        return result;
    }
    QString function = QString::fromLatin1(QTest::currentTestFunction());
    if (QTest::currentDataTag())
        function += QLatin1Char(':') + QString::fromUtf8(QTest::currentDataTag());
    QTemporaryDir mountPoint;
    const Run run = runInNamespace(mode == 1, mountPoint.path(),
                                   {QCoreApplication::applicationFilePath(), function, QStringLiteral("-o"),
                                    QStringLiteral("-,txt")});
    result.output = run.output;
    result.passed = run.started && run.exitCode == 0;
    if (run.exitCode == kCannotMount)
        result.output.prepend(QStringLiteral("the small disk could not be mounted this time\n"));
    return result;
}

bool SmallDisk::fill()
{
    const QByteArray path = QFile::encodeName(QDir(folder()).filePath(QString::fromLatin1(kFiller)));
    const int fd = ::open(path.constData(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return false;
    // Page-sized writes first, then single bytes into the last partial page.
    static const char page[4096] = {};
    int failedWith = 0;
    for (qsizetype chunk : {qsizetype(sizeof page), qsizetype(1)}) {
        for (;;) {
            const ssize_t n = ::write(fd, page, size_t(chunk));
            if (n < 0) {
                failedWith = errno;
                break;
            }
        }
        if (failedWith != ENOSPC)
            break;
    }
    ::close(fd);
    return failedWith == ENOSPC;
}

bool SmallDisk::makeReadOnly(QString *error)
{
    const QByteArray path = QFile::encodeName(folder());
    if (::mount(nullptr, path.constData(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) != 0) {
        *error = QStringLiteral("cannot remount %1 read-only: %2").arg(folder(), QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    return true;
}

QStringList SmallDisk::leftovers(const QStringList &expected)
{
    QStringList names = QDir(folder()).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
    names.removeAll(QString::fromLatin1(kFiller));
    for (const QString &name : expected)
        names.removeAll(name);
    return names;
}

} // namespace dimscope::test
