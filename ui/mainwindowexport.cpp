// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow's export side, kept apart from mainwindow.cpp: the Export dock, the
// result dock and the Why dock, shown when the ExportController has something for them.
#include "mainwindow.h"

#include "dimspanel.h"
#include "explanationspanel.h"
#include "exportcontroller.h"
#include "exportpanel.h"
#include "exportresultview.h"
#include "messagebanner.h"
#include "projectdocument.h"

#include <QAction>
#include <QDockWidget>
#include <QTimer>

namespace dimscope {

void MainWindow::createExportDocks()
{
    auto *panelDock = new QDockWidget(tr("Export"), this);
    panelDock->setObjectName(QStringLiteral("exportDock"));
    panelDock->setWidget(m_export->panel());
    addDockWidget(Qt::BottomDockWidgetArea, panelDock);
    auto *resultDock = new QDockWidget(tr("Exported program"), this);
    resultDock->setObjectName(QStringLiteral("exportResultDock"));
    resultDock->setWidget(m_export->resultView());
    // The outcome goes under the Dims it judges (the right column has the room for its
    // tables); the streamed log sits at the bottom with the other per-leaf panels.
    if (auto *dims = findChild<QDockWidget *>(QStringLiteral("dimsDock"))) {
        addDockWidget(Qt::RightDockWidgetArea, resultDock);
        splitDockWidget(dims, resultDock, Qt::Vertical);
        resizeDocks({dims, resultDock}, {2, 3}, Qt::Vertical);
    } else {
        addDockWidget(Qt::BottomDockWidgetArea, resultDock);
    }
    panelDock->hide(); // shown when there is something to show
    resultDock->hide();

    connect(m_export, &ExportController::exportStarted, this, [panelDock] {
        panelDock->show();
        panelDock->raise();
    });
    connect(m_export, &ExportController::exportDone, this, [resultDock] {
        resultDock->show();
        resultDock->raise();
    });
    createExplanationsDock(resultDock);
    connect(m_export, &ExportController::pt2Opened, this, [resultDock] {
        resultDock->show();
        resultDock->raise();
    });
    connect(m_export, &ExportController::message, this,
            [this](const QString &text) { m_banner->showMessage(MessageBanner::Kind::Error, text); });
    auto describe = [this] {
        setWorkerDescription(m_export->torchVersion(), ExportController::stateName(m_export->state()));
    };
    connect(m_export, &ExportController::stateChanged, this, describe);
    connect(m_export, &ExportController::environmentChanged, this, describe);
    describe();
}

// "Why": the document's shape decisions, tabbed with the result; selecting a Dim
// shows the decisions about it.
void MainWindow::createExplanationsDock(QDockWidget *resultDock)
{
    m_explanations = new ExplanationsPanel(this);
    auto *dock = new QDockWidget(tr("Why"), this);
    dock->setObjectName(QStringLiteral("explanationsDock"));
    dock->setWidget(m_explanations);
    addDockWidget(dockWidgetArea(resultDock), dock);
    tabifyDockWidget(resultDock, dock);
    dock->hide();
    connect(m_document, &ProjectDocument::explanationsChanged, this, [this, dock, resultDock] {
        m_explanations->setExplanations(m_document->explanations());
        if (m_document->explanations().isEmpty())
            return;
        dock->show();
        // The result first, the Why tab beside it (a dock shown for the first time in a
        // tab group becomes current on the next event loop turn: raise after that).
        QTimer::singleShot(0, resultDock, &QDockWidget::raise);
    });
    connect(m_dims, &DimsPanel::dimSelected, m_explanations, &ExplanationsPanel::showDim);
}

} // namespace dimscope
