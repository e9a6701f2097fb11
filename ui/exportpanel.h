// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace dimscope {

class ExportProgress;
class ExportResults;
class ExportService;

// The Export dock: what the worker is doing (ExportProgress: phase, round, step, a
// bar shown only while a job runs, determinate when the step counts), its output
// streamed line by line (from the ExportService), the outcome in a line (from the
// document's ExportResults), and Cancel (kills the worker; the next export starts a
// fresh one).
class ExportPanel : public QWidget
{
    Q_OBJECT
public:
    // `service`, `results` and `progress` outlive the panel.
    ExportPanel(ExportService *service, const ExportResults *results, ExportProgress *progress,
                QWidget *parent = nullptr);

    void started(const QString &what);
    // A worker progress event: into the log and the progress line.
    void setProgress(const QString &stage, const QString &message, double fraction);
    void appendLog(const QString &stream, const QString &text);
    void finished(bool ok, const QString &summary);
    // Back to idle with an empty log: the exports shown belonged to another document.
    void clear();

    QLabel *stageLabel() const { return m_stage; }
    QProgressBar *progressBar() const { return m_progress; }
    QPlainTextEdit *logView() const { return m_log; }
    QPushButton *cancelButton() const { return m_cancel; }

signals:
    void cancelRequested();

private:
    void followService(ExportService *service);
    void showResults();
    void showProgress();
    void logProgress(const QString &stage, const QString &message);

    const ExportResults *m_results;
    ExportProgress *m_exportProgress;
    QLabel *m_stage;
    QProgressBar *m_progress;
    QPlainTextEdit *m_log;
    QPushButton *m_cancel;
};

} // namespace dimscope
