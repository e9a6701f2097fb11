// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow's export side, kept apart from mainwindow.cpp: the Export dock (the
// streamed log) and the Why dock, shown when the ExportController has something for
// them. The exported program itself is a tab of the main area (mainwindowview.cpp).
#include "mainwindow.h"

#include "dimspanel.h"
#include "explanationspanel.h"
#include "exportcontroller.h"
#include "exportpanel.h"
#include "messagebanner.h"
#include "projectdocument.h"

#include <QAction>
#include <QDockWidget>

namespace dimscope {

void MainWindow::createExportDocks()
{
    auto *panelDock = new QDockWidget(tr("Export"), this);
    panelDock->setObjectName(QStringLiteral("exportDock"));
    panelDock->setWidget(m_export->panel());
    panelDock->setMinimumWidth(220);
    connect(m_export, &ExportController::exportStarted, this, [panelDock] {
        panelDock->show();
        panelDock->raise();
    });
    createExplanationsDock();
    connect(m_export, &ExportController::message, this,
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

// "Why": the document's shape decisions, under the Dims they are about; selecting a
// Dim shows the decisions about it.
void MainWindow::createExplanationsDock()
{
    m_explanations = new ExplanationsPanel(this);
    auto *dock = new QDockWidget(tr("Why"), this);
    dock->setObjectName(QStringLiteral("explanationsDock"));
    dock->setWidget(m_explanations);
    connect(m_document, &ProjectDocument::explanationsChanged, this, [this, dock] {
        m_explanations->setExplanations(m_document->explanations());
        if (m_document->explanations().isEmpty()) {
            dock->hide();
            return;
        }
        dock->show();
    });
    connect(m_dims, &DimsPanel::dimSelected, m_explanations, &ExplanationsPanel::showDim);
}

} // namespace dimscope
