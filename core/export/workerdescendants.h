// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace dimscope {

// Finds and ends the processes a worker started that outlived it: a child the model
// forked that is still running when the worker exits (also after a normal exit), or
// the daemon of a double fork that left the worker's session with setsid().
//
// This program makes itself a child subreaper (PR_SET_CHILD_SUBREAPER) before its
// first worker starts, so that a process whose parent exits is reparented to it
// rather than to init and can be found among its children. One of those is the
// worker's when it is in the worker's session (the worker leads one: setsid), or when
// its environment carries the worker's tag (kTagVariable, inherited by whatever the
// worker starts, also by a process that left the session).
//
// Out of reach (docs/security.md, "Processes the model starts"): a descendant that
// left the session and runs with a cleared environment, and everything still running
// when this program itself is killed with SIGKILL. A cgroup is the complete answer.
class WorkerDescendants
{
public:
    static constexpr const char *kTagVariable = "DIMSCOPE_WORKER_TAG";

    // Makes this process a child subreaper, once; false where the kernel refuses.
    static bool adoptOrphans();
    // A tag no other worker has: this process's pid and a counter.
    static QString newTag();
    // While a process started through WorkerProcessGroup runs, and until it is
    // released, its pid is never reaped here (QProcess reaps it).
    static void registerLeader(qint64 pid);
    static void forgetLeader(qint64 pid);

    // Kills (SIGKILL) and reaps this program's children in `session` or carrying
    // `tag`, round after round while killing one hands its own children to this
    // program, for at most `msecs`. Also reaps zombie children that sit in another
    // session and are no registered leader (a program a desktop opener started that
    // was reparented here and has exited). Returns how many it killed.
    static int end(qint64 session, const QString &tag, int msecs = 2000);
};

} // namespace dimscope
