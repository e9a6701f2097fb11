// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QProcess>

namespace dimscope {

// Keeps a worker process from outliving the program that started it, and from
// importing anything from the folder that program was started in. The worker (often
// a dynamic loader running python, or a launcher script that execs one) is started as
// the leader of its own session and process group, so one signal to the group reaches
// it and anything it started; with a parent-death signal, so that it is killed when
// the starting thread's process dies, even by SIGKILL; in a fresh private working
// folder (QDir::tempPath()/dimscope-worker-XXXXXX, mode 0700), never the user's
// current folder; and with a tag in its environment by which WorkerDescendants finds
// what it started that outlived it.
//
// PR_SET_PDEATHSIG fires when the *thread* that forked exits, not the process: start
// workers from a thread that lives as long as they do (dimscope starts them from
// the main thread). It survives execve of ordinary (not set-user-ID) programs, which
// the loader and python are.
class WorkerProcessGroup
{
public:
    // Before QProcess::start() and after setProcessEnvironment(): the working folder,
    // the tag; the child calls setsid() and sets the death signal; this program becomes
    // a child subreaper. False, with the reason in *error, when no folder can be made.
    static bool prepare(QProcess *process, QString *error);
    // SIGKILL to the whole group of a started process (its pid is the group id). Does
    // not wait: QProcess reaps the leader from the event loop and emits finished().
    static void kill(QProcess *process);
    // Waits up to waitMsecs for a killed process to be reaped; true when it is gone.
    // Blocks the calling thread: for the end of a program only, never for the GUI.
    static bool reap(QProcess *process, int waitMsecs);
    // Once the process has exited, however it ended (a normal exit included): ends what
    // it started that is still running (WorkerDescendants::end) and removes its working
    // folder. A process still running is killed and reaped first.
    static void release(QProcess *process);
};

} // namespace dimscope
