// SPDX-License-Identifier: GPL-3.0-or-later
#include "interruptwatcher.h"

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

namespace {
// One watcher at a time (a command's run): the handler can only reach globals.
int g_pipe[2] = {-1, -1};
volatile sig_atomic_t g_caught = 0;
} // namespace

InterruptWatcher::InterruptWatcher(QObject *parent)
    : QObject(parent)
{
    // Close-on-exec: the worker must not inherit the pipe.
    if (::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        g_pipe[0] = g_pipe[1] = -1;
        return; // default signal handling then: the death signal still stops the worker
    }
    g_caught = 0;
    m_notifier = new QSocketNotifier(g_pipe[0], QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &InterruptWatcher::onPipeReadable);
    struct sigaction action = {};
    action.sa_handler = &InterruptWatcher::onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (int i = 0; i < 3; ++i)
        ::sigaction(kSignals[i], &action, &m_previous[i]);
}

InterruptWatcher::~InterruptWatcher()
{
    restore();
}

void InterruptWatcher::restore()
{
    if (g_pipe[0] < 0)
        return;
    for (int i = 0; i < 3; ++i)
        ::sigaction(kSignals[i], &m_previous[i], nullptr);
    delete m_notifier;
    m_notifier = nullptr;
    ::close(g_pipe[0]);
    ::close(g_pipe[1]);
    g_pipe[0] = g_pipe[1] = -1;
}

int InterruptWatcher::caughtSignal() const
{
    return g_caught;
}

QString InterruptWatcher::signalName(int signo)
{
    switch (signo) {
    case SIGINT: return QStringLiteral("SIGINT");
    case SIGTERM: return QStringLiteral("SIGTERM");
    case SIGHUP: return QStringLiteral("SIGHUP");
    }
    return QStringLiteral("signal %1").arg(signo);
}

void InterruptWatcher::onSignal(int signo)
{
    if (g_caught != 0) { // asked again while cleaning up: give up at once
        ::signal(signo, SIG_DFL);
        ::raise(signo);
        return;
    }
    g_caught = signo;
    const int saved = errno;
    const char byte = char(signo);
    [[maybe_unused]] const ssize_t n = ::write(g_pipe[1], &byte, 1);
    errno = saved;
}

void InterruptWatcher::onPipeReadable()
{
    char bytes[16];
    while (::read(g_pipe[0], bytes, sizeof bytes) > 0) {
    }
    if (g_caught != 0)
        emit interrupted(g_caught);
}
