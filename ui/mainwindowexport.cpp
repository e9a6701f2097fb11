// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow's export side, kept apart from mainwindow.cpp: the Export dock (the
// streamed log) and the Why dock, which follow the document's ExportResults, the
// ExportController's actions behind the result view's buttons, and the notice of a
// project saved to export on CUDA. The exported program itself is a tab of the main
// area (mainwindowview.cpp).
#include "mainwindow.h"

#include "aoticontroller.h"
#include "comparecontroller.h"
#include "dimspanel.h"
#include "explanationspanel.h"
#include "exportcontroller.h"
#include "exportnotifier.h"
#include "exportpanel.h"
#include "exportstatusindicator.h"
#include "document/exportresults.h"
#include "exportresultview.h"
#include "messagebanner.h"
#include "document/projectdocument.h"

#include <QAction>
#include <QDockWidget>
#include <QStatusBar>
#include <QTimer>
#include <QFileInfo>

namespace dimscope {

void MainWindow::createExportDocks()
{
    m_exportPanel = new ExportPanel(m_export->service(), m_document->exportResults(), m_export->progress());
    // The running export's line in the status bar too, before the worker's state; and
    // its end on the desktop when the window is not the active one.
    statusBar()->insertPermanentWidget(1, new ExportStatusIndicator(m_export->progress()));
    new ExportNotifier(this, m_export->service(), m_document->exportResults());
    auto *panelDock = new QDockWidget(tr("Export"), this);
    panelDock->setObjectName(QStringLiteral("exportDock"));
    panelDock->setWidget(m_exportPanel);
    panelDock->setMinimumWidth(220);
    connect(m_export, &ExportController::exportStarted, this, [this, panelDock](const QString &what) {
        m_exportPanel->started(what);
        panelDock->show();
        panelDock->raise();
    });
    connect(m_export, &ExportController::exportRefused, m_exportPanel,
            [this](const QString &why) { m_exportPanel->finished(false, why); });
    connect(m_exportPanel, &ExportPanel::cancelRequested, m_export, &ExportController::cancel);
    createExplanationsDock();
    connect(m_export, &ExportController::message, this,
            [this](const QString &text) { m_banner->showMessage(MessageBanner::Kind::Error, text); });
    // Export > Compile with AOTInductor… (its actions go into the Export menu).
    m_aoti = new AotiController(m_document, m_export->client(), this);
    connect(m_aoti, &AotiController::message, this, [this](const QString &text) { statusBar()->showMessage(text); });
    // Compare Exports… and Compare Captures… (their actions go into the menus).
    m_compare = new CompareController(m_document, this);
    connect(m_compare, &CompareController::message, this,
            [this](const QString &text) { m_banner->showMessage(MessageBanner::Kind::Error, text); });
    auto describe = [this] {
        setWorkerDescription(m_export->torchVersion(), ExportController::stateName(m_export->state()));
    };
    connect(m_export, &ExportController::stateChanged, this, describe);
    connect(m_export, &ExportController::environmentChanged, this, describe);
    connect(m_export, &ExportController::environmentChanged, this, [this] {
        if (m_cudaNoticePending) {
            m_cudaNoticePending = false;
            noticeCudaProject();
        }
    });
    describe();
}

// A project saved to export on CUDA says so when it opens, and whether this machine
// can (the worker reports CUDA once started; environmentChanged calls this again).
void MainWindow::noticeCudaProject()
{
    if (!m_document->hasCapture() || m_document->exportOptions().device != QLatin1String("cuda"))
        return;
    const QString project = QFileInfo(m_document->projectPath()).fileName();
    if (m_export->environment().isEmpty()) {
        m_cudaNoticePending = true; // said again once the worker reports (environmentChanged)
        m_export->ensureWorker();
        m_banner->showMessage(MessageBanner::Kind::Info,
                              tr("%1 exports on CUDA. Checking whether this machine has a CUDA device…").arg(project));
    } else if (m_export->cudaAvailable()) {
        m_banner->showMessage(MessageBanner::Kind::Info, tr("%1 exports on CUDA (Export > Export on CUDA).").arg(project));
    } else {
        m_banner->showMessage(MessageBanner::Kind::Warning,
                              tr("%1 was saved to export on CUDA: %2 Export on CPU works here.")
                                  .arg(project, m_export->cudaUnavailableReason()),
                              0);
    }
}

// "Why": the document's shape decisions, under the Dims they are about; selecting a
// Dim shows the decisions about it.
void MainWindow::createExplanationsDock()
{
    m_explanations = new ExplanationsPanel(this);
    auto *dock = new QDockWidget(tr("Why"), this);
    dock->setObjectName(QStringLiteral("explanationsDock"));
    dock->setWidget(m_explanations);
    ExportResults *results = m_document->exportResults();
    connect(results, &ExportResults::changed, this, [this, results, dock] {
        m_explanations->setExplanations(results->explanations());
        const bool appears = dock->isHidden() && !results->explanations().isEmpty() && !m_welcomeMode;
        dock->setVisible(!results->explanations().isEmpty());
        if (appears && !dock->isFloating())
            QTimer::singleShot(0, this, &MainWindow::giveWhyItsShare); // once the layout has placed it
    });
    connect(m_dims, &DimsPanel::dimSelected, m_explanations, &ExplanationsPanel::showDim);
}

// The result view's buttons are the export controller's actions.
void MainWindow::connectResultView()
{
    connect(m_resultView, &ExportResultView::applyFixesRequested, m_export, &ExportController::applyFixes);
    connect(m_resultView, &ExportResultView::reexportRequested, m_export, &ExportController::reexport);
    connect(m_resultView, &ExportResultView::useExampleCallRequested, m_export,
            &ExportController::reexportWithExampleCall);
    connect(m_resultView, &ExportResultView::exportPhasesRequested, m_export, &ExportController::reexportWithPhases);
    connect(m_resultView, &ExportResultView::verifyWithRequested, m_export, &ExportController::chooseHeldOutCapture);
    connect(m_export, &ExportController::fixesApplied, m_resultView, &ExportResultView::showFixOutcome);
    connect(m_export, &ExportController::fixesUndone, m_resultView, &ExportResultView::showFixesUndone);
}

} // namespace dimscope
