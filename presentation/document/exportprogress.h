// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>
#include <QVector>

namespace dimscope {

class ExportService;

// Where the running export (or another worker job) is, in words and as a fraction,
// for the Export dock and the window's status bar (issue 28, problem 9): the phase and
// fix-loop round from the pipeline, the step from the worker's progress events
// ("phase 2 · round 2 · verifying call 5 (3 of 8)"), the worker's fraction where the
// step counts something (a determinate bar), none otherwise (a busy bar). Idle once the
// job ended: nothing to show then, no "0 %"; the outcome is ExportResults' to say.
// The ExportController holds it; start() with each export, follow() once.
class ExportProgress : public QObject
{
    Q_OBJECT
public:
    explicit ExportProgress(QObject *parent = nullptr);

    // The service's pipeline and worker events from now on, and idle when it finishes.
    void follow(ExportService *service);

    bool isRunning() const { return m_running; }
    // One line: "phase 2 · round 2 · verifying call 5 (3 of 8)"; empty when idle.
    QString text() const;
    // The worker's own words for the current step (a tooltip), or the job's title.
    QString detail() const { return m_detail; }
    // 0..1 where the step counts (verify: calls done / calls); < 0: unknown (busy).
    double fraction() const { return m_fraction; }
    // The fraction in percent (0..100), or -1 when unknown.
    int percent() const;

    // A job starts: its text is `title` ("Exporting demo on cpu → /tmp/demo.pt2")
    // until the worker reports a step.
    void start(const QString &title);
    // A phase of the pipeline: `calls` empty and `description` "every call" when the
    // export is not phased (no phase is named then).
    void startPhase(int phase, const QVector<int> &calls, const QString &description);
    // A fix-loop round of the current phase (named from round 2 on).
    void startRound(int round);
    // A worker progress event (docs/worker-protocol.md: stage, message, fraction < 0
    // when the event had none).
    void report(const QString &stage, const QString &message, double fraction);
    // The worker's part is over; the programs are read back.
    void readBack();
    // The job ended (done, failed or cancelled): idle.
    void finish();

    // The step a worker stage names, in words ("verifying", "reading the capture"); the
    // stage itself for one this version does not know.
    static QString stageText(const QString &stage, const QString &message);

signals:
    void changed();

private:
    bool m_running = false;
    int m_phase = 0;  // 0: not phased
    int m_round = 1;
    QString m_step;   // the current step in words; empty before the first
    QString m_detail;
    double m_fraction = -1;
};

} // namespace dimscope
