// SPDX-License-Identifier: GPL-3.0-or-later
#include "comparecontroller.h"

#include "capture/capturereader.h"
#include "compare/capturecomparison.h"
#include "comparedialog.h"
#include "document/exportresults.h"
#include "document/projectdocument.h"
#include "util/latestjob.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>

#include <optional>

namespace dimscope {

namespace {

// What the job hands back: the comparison, or why the second capture was not read.
struct CaptureComparisonJob {
    std::optional<Comparison> comparison;
    QString error;
};

} // namespace

CompareController::CompareController(ProjectDocument *document, QWidget *window)
    : QObject(window), m_document(document), m_window(window), m_exports(new QAction(tr("Compare &Exports…"), this)),
      m_captures(new QAction(tr("Compare Ca&ptures…"), this)), m_reading(new LatestJob(this))
{
    m_exports->setObjectName(QStringLiteral("actionCompareExports"));
    m_exports->setToolTip(tr("Two of this document's last %1 export results side by side").arg(ExportResults::kHistorySize));
    m_captures->setObjectName(QStringLiteral("actionCompareCaptures"));
    m_captures->setToolTip(tr("This document's capture and another side by side: leaves, dims that vary"));
    connect(m_exports, &QAction::triggered, this, &CompareController::compareExports);
    connect(m_captures, &QAction::triggered, this, &CompareController::compareCaptures);
    connect(document->exportResults(), &ExportResults::historyChanged, this, &CompareController::updateActions);
    connect(document, &ProjectDocument::captureChanged, this, [this] {
        m_reading->cancel(); // a comparison with the previous capture is not this document's
        updateActions();
    });
    updateActions();
}

CompareController::~CompareController() = default;

void CompareController::updateActions()
{
    m_exports->setEnabled(m_document && m_document->exportResults()->history().size() >= 2);
    m_captures->setEnabled(m_document && m_document->hasCapture());
}

CompareDialog *CompareController::ensureDialog()
{
    if (!m_dialog)
        m_dialog = new CompareDialog(m_window);
    return m_dialog;
}

void CompareController::compareExports()
{
    if (!m_document)
        return;
    CompareDialog *dialog = ensureDialog();
    dialog->showExports(m_document->exportResults());
    dialog->show();
    dialog->raise();
}

void CompareController::compareCaptures()
{
    if (!m_document || !m_document->hasCapture())
        return;
    const QString path = QFileDialog::getOpenFileName(m_window, tr("Compare With Capture"),
                                                      QFileInfo(m_document->capturePath()).absolutePath(),
                                                      tr("Captures (*.safetensors);;All files (*)"));
    if (!path.isEmpty())
        compareCaptureFile(path);
}

void CompareController::compareCaptureFile(const QString &path)
{
    if (!m_document || !m_document->hasCapture())
        return;
    const Capture mine = m_document->capture(); // a value: the file's mapping is shared
    const QString titleA = QFileInfo(m_document->capturePath()).fileName();
    m_reading->start(
        [mine, titleA, path](const LatestJob::Control &) {
            CaptureComparisonJob job;
            const std::optional<Capture> other = CaptureReader::open(path, &job.error);
            if (other)
                job.comparison = CaptureComparison::make(mine, *other, titleA, QFileInfo(path).fileName());
            return job;
        },
        [this](CaptureComparisonJob job) {
            if (!job.comparison) {
                emit message(tr("Not compared: %1").arg(job.error)); // the reader names the file
                return;
            }
            CompareDialog *dialog = ensureDialog();
            dialog->showComparison(*job.comparison);
            dialog->show();
            dialog->raise();
        });
}

} // namespace dimscope
