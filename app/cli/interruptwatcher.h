// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QSocketNotifier>

#include <csignal>

// Turns SIGINT, SIGTERM and SIGHUP into a Qt signal while it exists, so that a
// command can stop its worker and clean up instead of dying with the worker left
// behind. The handler only writes the signal number to a pipe (async-signal-safe);
// interrupted() is emitted from the event loop. A second signal while the first is
// being handled takes the default action at once (the worker then dies with this
// process through its death signal). The previous handlers come back on destruction.
class InterruptWatcher : public QObject
{
    Q_OBJECT
public:
    explicit InterruptWatcher(QObject *parent = nullptr);
    ~InterruptWatcher() override;

    // Puts the previous handlers back (also done on destruction): once the worker is
    // gone, a signal takes its default action again instead of waiting to be noticed.
    // caughtSignal() keeps what was caught before.
    void restore();
    // The first signal caught (0 = none yet), also when no event loop ran since.
    int caughtSignal() const;
    // The exit code for a command ended by that signal: 128 + its number.
    int exitCode() const { return 128 + caughtSignal(); }
    static QString signalName(int signo);

signals:
    void interrupted(int signo);

private:
    static void onSignal(int signo);
    void onPipeReadable();

    static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction m_previous[3] = {};
    QSocketNotifier *m_notifier = nullptr;
};
