// SPDX-License-Identifier: GPL-3.0-or-later
#include "exportpanel.h"

#include "export/exportservice.h"
#include "document/exportprogress.h"
#include "document/exportresults.h"
#include "elidedlabel.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTime>
#include <QVBoxLayout>

namespace dimscope {

ExportPanel::ExportPanel(ExportService *service, const ExportResults *results, ExportProgress *progress,
                         QWidget *parent)
    : QWidget(parent), m_results(results), m_exportProgress(progress), m_stage(new QLabel(this)), m_progress(new QProgressBar(this)), m_log(new QPlainTextEdit(this)),
      m_recording(new ElidedLabel(Qt::ElideRight, this)), m_recordingCalls(new ElidedLabel(Qt::ElideRight, this)),
      m_cancel(new QPushButton(tr("Cancel"), this))
{
    m_stage->setObjectName(QStringLiteral("exportStage"));
    m_stage->setText(tr("Idle."));
    // A long stage line ("Exporting pkg.models:make_model on cpu → /long/path.pt2")
    // wraps inside the dock; without this the label's width would widen the dock.
    m_stage->setWordWrap(true);
    m_stage->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_stage->setMinimumWidth(120);
    m_progress->setObjectName(QStringLiteral("exportProgress"));
    m_progress->setRange(0, 100);
    m_progress->setMaximumWidth(160);
    m_progress->hide(); // only while a job runs: no "0 %" when idle or failed (issue 28, problem 9)
    m_log->setObjectName(QStringLiteral("exportLog"));
    m_log->setReadOnly(true);
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_log->setMaximumBlockCount(5000); // a chatty export must not grow memory without bound
    // Long lines (paths, torch's messages) wrap: with NoWrap, a log shown after lines
    // were appended while it was hidden scrolled sideways to the end of the last line,
    // hiding the start of every line (issue 28, problem 3).
    m_log->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_log->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    m_recording->setObjectName(QStringLiteral("exportRecording"));
    m_recordingCalls->setObjectName(QStringLiteral("exportRecordingCalls"));
    m_recording->hide();
    m_recordingCalls->hide();
    m_cancel->setObjectName(QStringLiteral("exportCancel"));
    m_cancel->setEnabled(false);
    m_cancel->setToolTip(tr("Stop the export (kills the worker; the next export starts a fresh one)"));
    connect(m_cancel, &QPushButton::clicked, this, &ExportPanel::cancelRequested);

    auto *row = new QHBoxLayout;
    row->addWidget(m_stage, 1);
    row->addWidget(m_progress);
    row->addWidget(m_cancel);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(row);
    layout->addWidget(m_recording);
    layout->addWidget(m_recordingCalls);
    layout->addWidget(m_log, 1);
    followService(service);
    connect(m_results, &ExportResults::changed, this, &ExportPanel::showResults);
    connect(m_exportProgress, &ExportProgress::changed, this, &ExportPanel::showProgress);
}

void ExportPanel::followService(ExportService *service)
{
    // ExportProgress follows the service's progress itself; the log shows each event.
    connect(service, &ExportService::progress, this,
            [this](const QString &stage, const QString &message) { logProgress(stage, message); });
    connect(service, &ExportService::logLine, this, &ExportPanel::appendLog);
    connect(service, &ExportService::step, this, [this](const QString &text) { appendLog(QStringLiteral("dimscope"), text); });
}

// The outcome's line when an export finished; idle and empty when the document changed.
void ExportPanel::showResults()
{
    if (m_results->hasOutcome())
        finished(m_results->succeeded(), m_results->summary());
    else if (m_results->isEmpty())
        clear();
}

// While a job runs: its line, and the bar (busy while the step counts nothing). Once
// it ended the bar goes; the outcome's line (showResults) replaces the job's.
void ExportPanel::showProgress()
{
    m_progress->setVisible(m_exportProgress->isRunning());
    if (!m_exportProgress->isRunning())
        return;
    m_stage->setText(m_exportProgress->text());
    m_stage->setToolTip(m_exportProgress->detail());
    const int percent = m_exportProgress->percent();
    m_progress->setRange(0, percent < 0 ? 0 : 100);
    m_progress->setValue(qMax(0, percent));
}

void ExportPanel::clear()
{
    m_stage->setText(tr("Idle."));
    m_stage->setToolTip(QString());
    m_progress->setVisible(m_exportProgress->isRunning());
    m_cancel->setEnabled(false);
    m_log->clear();
}

void ExportPanel::started(const QString &what)
{
    m_stage->setText(what);
    m_cancel->setEnabled(true);
    m_log->appendPlainText(QStringLiteral("── %1 %2").arg(QTime::currentTime().toString(QStringLiteral("HH:mm:ss")), what));
}

void ExportPanel::setProgress(const QString &stage, const QString &message, double fraction)
{
    logProgress(stage, message);
    m_exportProgress->report(stage, message, fraction);
}

void ExportPanel::logProgress(const QString &stage, const QString &message)
{
    m_log->appendPlainText(QStringLiteral("[%1] %2").arg(stage, message));
}

void ExportPanel::appendLog(const QString &stream, const QString &text)
{
    if (text.trimmed().isEmpty())
        return;
    m_log->appendPlainText(stream == QLatin1String("stdout") ? text : QStringLiteral("%1: %2").arg(stream, text));
}

void ExportPanel::finished(bool ok, const QString &summary)
{
    Q_UNUSED(ok) // the summary says it; no bar at 0 % or 100 % once the job ended
    m_stage->setText(summary);
    m_stage->setToolTip(QString());
    m_progress->setVisible(m_exportProgress->isRunning());
    m_cancel->setEnabled(false);
    m_log->appendPlainText(summary);
}

void ExportPanel::setRecording(const QString &summary)
{
    // Two lines whatever the prompts: the dock's minimum height must not grow with them.
    QStringList calls = summary.split(QLatin1Char('\n'));
    const QString first = calls.takeFirst();
    m_recording->setFullText(first);
    m_recording->setFitToolTip(summary);
    m_recordingCalls->setFullText(calls.join(QStringLiteral(" · ")));
    m_recordingCalls->setFitToolTip(summary);
    m_recording->setVisible(!summary.isEmpty());
    m_recordingCalls->setVisible(!summary.isEmpty());
}

} // namespace dimscope
