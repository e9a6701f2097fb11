// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace dimscope {

class ElidedLabel;
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
    // What made the open capture when dimscope recorded it (RecordingSummary: model,
    // settings, prompts), above the log; hidden when empty (issue 21 item 3).
    void setRecording(const QString &summary);

    QLabel *stageLabel() const { return m_stage; }
    // The recording's model and settings, then its generate() calls' prompts: one
    // elided line each (the whole summary in their tooltips).
    ElidedLabel *recordingLabel() const { return m_recording; }
    ElidedLabel *recordingCallsLabel() const { return m_recordingCalls; }
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
    ElidedLabel *m_recording;
    ElidedLabel *m_recordingCalls;
    QPushButton *m_cancel;
};

} // namespace dimscope
