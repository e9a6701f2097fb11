// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/workerprocessgroup.h"

#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace dimscope {

void WorkerProcessGroup::prepare(QProcess *process)
{
    const pid_t parent = ::getpid();
    // Runs in the child between fork and exec: async-signal-safe calls only.
    process->setChildProcessModifier([parent]() {
        ::setsid(); // a fresh child is never a group leader: this cannot fail
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) // the parent died before the death signal was set
            ::_exit(127);
    });
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

} // namespace dimscope
