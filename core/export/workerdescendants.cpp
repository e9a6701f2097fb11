// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/workerdescendants.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QMutex>
#include <QSet>
#include <QVector>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace dimscope {

namespace {

struct Child {
    qint64 pid;
    char state; // 'Z': exited, waiting to be reaped
    qint64 session;
};

struct Leaders {
    QMutex mutex;
    QSet<qint64> pids;
};
Q_GLOBAL_STATIC(Leaders, leaders)

bool isLeader(qint64 pid)
{
    QMutexLocker lock(&leaders->mutex);
    return leaders->pids.contains(pid);
}

// This process's children, from /proc/PID/stat: "pid (comm) state ppid pgrp session …",
// where comm may hold spaces and parentheses, so the fields are those after the last ')'.
QVector<Child> children()
{
    QVector<Child> out;
    const qint64 self = ::getpid();
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &entry : entries) {
        bool isPid = false;
        const qint64 pid = entry.toLongLong(&isPid);
        if (!isPid)
            continue;
        QFile file(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!file.open(QIODevice::ReadOnly))
            continue; // gone meanwhile
        const QByteArray stat = file.read(4096);
        const int close = stat.lastIndexOf(')');
        if (close < 0)
            continue;
        const QList<QByteArray> fields = stat.mid(close + 2).split(' ');
        if (fields.size() < 4 || fields.at(1).toLongLong() != self || fields.at(0).isEmpty())
            continue;
        out.append({pid, fields.at(0).at(0), fields.at(3).toLongLong()});
    }
    return out;
}

// Whether the process's environment (as it was started: a fork keeps its parent's)
// holds `needle` ("\0NAME=value\0"). Unreadable (exited, another user's): no.
bool carries(qint64 pid, const QByteArray &needle)
{
    QFile file(QStringLiteral("/proc/%1/environ").arg(pid));
    if (!file.open(QIODevice::ReadOnly))
        return false;
    QByteArray environ(1, '\0'); // each entry ends with NUL: a leading one makes them alike
    environ += file.readAll();
    return environ.contains(needle);
}

// True once `pid` is reaped, by this call or before (then it is no child any more).
bool reaped(qint64 pid)
{
    const pid_t r = ::waitpid(pid_t(pid), nullptr, WNOHANG);
    return r == pid_t(pid) || (r < 0 && errno == ECHILD);
}

} // namespace

bool WorkerDescendants::adoptOrphans()
{
    static const bool adopted = ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
    return adopted;
}

QString WorkerDescendants::newTag()
{
    static std::atomic<int> counter{0};
    return QStringLiteral("%1.%2").arg(::getpid()).arg(++counter);
}

void WorkerDescendants::registerLeader(qint64 pid)
{
    QMutexLocker lock(&leaders->mutex);
    leaders->pids.insert(pid);
}

void WorkerDescendants::forgetLeader(qint64 pid)
{
    QMutexLocker lock(&leaders->mutex);
    leaders->pids.remove(pid);
}

int WorkerDescendants::end(qint64 session, const QString &tag, int msecs)
{
    QByteArray needle(1, '\0');
    needle += kTagVariable;
    needle += '=';
    needle += tag.toUtf8();
    needle += '\0';
    const qint64 ownSession = ::getsid(0);
    QElapsedTimer clock;
    clock.start();
    int killed = 0;
    QSet<qint64> dying; // killed or found exited, not reaped yet
    // A child is this program's own and unreaped, so its pid cannot be reused while it
    // is killed and waited for. Killing one reparents its children here: another round.
    forever {
        bool found = false;
        for (const Child &c : children()) {
            if (isLeader(c.pid) || dying.contains(c.pid))
                continue;
            const bool alive = c.state != 'Z';
            if (c.session == session || (alive && !tag.isEmpty() && carries(c.pid, needle))) {
                if (alive && ::kill(pid_t(c.pid), SIGKILL) == 0)
                    ++killed;
                dying.insert(c.pid);
                found = true;
            } else if (!alive && c.session != ownSession) {
                reaped(c.pid); // an orphan adopted here that has exited: nobody else will wait for it
            }
        }
        for (auto it = dying.begin(); it != dying.end();)
            it = reaped(*it) ? dying.erase(it) : std::next(it);
        if ((!found && dying.isEmpty()) || clock.elapsed() >= msecs)
            break;
        ::usleep(1000);
    }
    return killed;
}

} // namespace dimscope
