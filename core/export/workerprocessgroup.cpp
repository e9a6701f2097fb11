// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/workerprocessgroup.h"

#include "export/workerdescendants.h"

#include <QDir>
#include <QProcessEnvironment>
#include <QTemporaryDir>

#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace dimscope {

namespace {
// Kept on the QProcess itself: it is what the client holds until the process is reaped.
constexpr char kFolderProperty[] = "dimscopeWorkerFolder";
constexpr char kTagProperty[] = "dimscopeWorkerTag";
constexpr char kPidProperty[] = "dimscopeWorkerPid";
constexpr int kReleaseReapMs = 1000;
} // namespace

bool WorkerProcessGroup::prepare(QProcess *process, QString *error)
{
    // Python puts the folder it starts in on sys.path in some modes, and a model's
    // relative paths would land in the user's folder: a fresh private one instead.
    QTemporaryDir folder(QDir::tempPath() + QStringLiteral("/dimscope-worker-XXXXXX"));
    if (!folder.isValid()) {
        if (error)
            *error = QStringLiteral("cannot create a private working folder for the Python worker in %1: %2")
                         .arg(QDir::tempPath(), folder.errorString());
        return false;
    }
    folder.setAutoRemove(false); // removed by release(), once the process has exited
    process->setWorkingDirectory(folder.path());
    process->setProperty(kFolderProperty, folder.path());

    const QString tag = WorkerDescendants::newTag();
    process->setProperty(kTagProperty, tag);
    QProcessEnvironment env = process->processEnvironment();
    if (env.isEmpty())
        env = QProcessEnvironment::systemEnvironment();
    env.insert(QLatin1String(WorkerDescendants::kTagVariable), tag);
    process->setProcessEnvironment(env);
    // Before the first worker exists, so that nothing it starts can be orphaned to init.
    WorkerDescendants::adoptOrphans();
    QObject::connect(process, &QProcess::started, process, [process] {
        const qint64 pid = process->processId();
        process->setProperty(kPidProperty, pid);
        WorkerDescendants::registerLeader(pid);
    });

    const pid_t parent = ::getpid();
    // Runs in the child between fork and exec: async-signal-safe calls only.
    process->setChildProcessModifier([parent]() {
        ::setsid(); // a fresh child is never a group leader: this cannot fail
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) // the parent died before the death signal was set
            ::_exit(127);
    });
    return true;
}

void WorkerProcessGroup::kill(QProcess *process)
{
    if (process->state() == QProcess::NotRunning)
        return;
    const qint64 pid = process->processId();
    // The leader is not reaped until QProcess sees it finish, so its pid (the group
    // id) cannot have been reused by an unrelated process.
    if (pid > 0 && ::kill(-pid_t(pid), SIGKILL) != 0)
        process->kill(); // no such group: the child died before setsid()
}

bool WorkerProcessGroup::reap(QProcess *process, int waitMsecs)
{
    if (process->state() == QProcess::Starting)
        process->waitForStarted(waitMsecs);
    return process->state() == QProcess::NotRunning || process->waitForFinished(waitMsecs);
}

void WorkerProcessGroup::release(QProcess *process)
{
    if (process->state() != QProcess::NotRunning) {
        kill(process);
        reap(process, kReleaseReapMs);
    }
    // The leader is reaped, so the group can no longer be signalled safely; what it
    // left running was reparented here (subreaper) and is found by session and tag.
    const qint64 pid = process->property(kPidProperty).toLongLong();
    if (pid > 0) {
        WorkerDescendants::end(pid, process->property(kTagProperty).toString());
        WorkerDescendants::forgetLeader(pid);
    }
    const QString folder = process->property(kFolderProperty).toString();
    if (!folder.isEmpty())
        QDir(folder).removeRecursively();
    for (const char *name : {kFolderProperty, kTagProperty, kPidProperty})
        process->setProperty(name, QVariant()); // released once
}

} // namespace dimscope
