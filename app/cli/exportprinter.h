// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QVector>

class InterruptWatcher;
class QTextStream;

namespace dimscope {
class ConstraintSet;
class ExportClient;
class ExportRun;
struct ExportReport;
struct ExportResult;
struct ShapeExplanation;
}

// What `dimscope-cli export` prints of a core ExportRun: its steps as they come (each
// round's verification table or failure; with --fix-loop the phases, rounds and fixes
// with their causes), then the programs read back and the verdict. Printing only: what
// happens, and why, is the run's (docs/cli.md, "export").
class ExportPrinter
{
public:
    ExportPrinter(QTextStream &out, QTextStream &err, bool fixLoop, bool explain);

    // Prints the worker's command line and package, then its progress (stdout) and
    // log lines (stderr) as they come.
    void follow(dimscope::ExportClient &client);
    // Prints `run`'s steps while it runs; nothing once `interrupts` caught a signal.
    void follow(dimscope::ExportRun &run, const InterruptWatcher &interrupts);
    // The end of the run: the programs read back and what failed. Returns the exit
    // code (0: report.ok()); `json`, when given, gets the report (docs/cli.md).
    int finish(const dimscope::ExportReport &report, const QString &json);

    // SIGINT/SIGTERM/SIGHUP while the worker ran (the run was cancelled: the worker's
    // process group killed, its save folder removed): one line; the shell's exit code.
    int interrupted(const InterruptWatcher &interrupts);

    // "seq_len [1, oo], total_len = seq_len + 1", "(no named Dims)".
    static QString dimsText(const dimscope::ConstraintSet &set);

private:
    void printRound(const dimscope::ExportResult &r);
    void printExplanations(QTextStream &s, const QVector<dimscope::ShapeExplanation> &all, const QString &indent);
    void printSuccessExplanations(const dimscope::ExportResult &r, bool cameOutStatic);
    int finishSingle(const dimscope::ExportReport &report);
    int finishPhases(const dimscope::ExportReport &report);
    bool writeJson(const dimscope::ExportReport &report, const QString &path);
    void printHeldOut(const dimscope::ExportReport &report);
    void printProbes(const dimscope::ExportReport &report, const QVector<dimscope::ExportResult> &single);

    QTextStream &m_out;
    QTextStream &m_err;
    bool m_fixLoop;
    bool m_explain;
};
