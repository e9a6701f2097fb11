// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;

namespace dimscope {

class ExportResults;
class ExportService;

// The Export dock: what the worker is doing (stage, progress), its output streamed
// line by line (both from the ExportService), the outcome in a line (from the
// document's ExportResults), and Cancel (kills the worker; the next export starts a
// fresh one).
class ExportPanel : public QWidget
{
    Q_OBJECT
public:
    // `service` and `results` outlive the panel.
    ExportPanel(ExportService *service, const ExportResults *results, QWidget *parent = nullptr);

    void started(const QString &what);
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

    const ExportResults *m_results;
    QLabel *m_stage;
    QProgressBar *m_progress;
    QPlainTextEdit *m_log;
    QPushButton *m_cancel;
};

} // namespace dimscope
