// MainWindow's export side, kept apart from mainwindow.cpp: the Export dock, the
// result dock, the Export menu's actions and File > Open Model…, wired to the
// ExportController.
#include "mainwindow.h"

#include "exportcontroller.h"
#include "exportpanel.h"
#include "exportresultview.h"
#include "messagebanner.h"
#include "projectdocument.h"

#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>

namespace dimscope {

namespace {

QMenu *findMenu(QMainWindow *window, const QString &objectName, const QString &title)
{
    for (QAction *a : window->menuBar()->actions()) {
        QMenu *menu = a->menu();
        if (menu && (menu->objectName() == objectName || menu->title().remove(QLatin1Char('&')) == title))
            return menu;
    }
    return nullptr;
}

// Puts `replacement` where the menu has an action of the same object name (the
// placeholders of the phase-1 window), else appends it.
void placeAction(QMenu *menu, QAction *replacement, QAction *before = nullptr)
{
    for (QAction *a : menu->actions()) {
        if (a != replacement && a->objectName() == replacement->objectName()) {
            menu->insertAction(a, replacement);
            menu->removeAction(a);
            delete a; // now: a findChild by name must find the replacement
            return;
        }
    }
    menu->insertAction(before, replacement);
}

} // namespace

void MainWindow::createExportUi()
{
    m_export = new ExportController(m_document, this, this);

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

    if (QMenu *exportMenu = findMenu(this, QStringLiteral("exportMenu"), tr("Export"))) {
        QAction *first = exportMenu->actions().value(0);
        placeAction(exportMenu, m_export->exportCpuAction(), first);
        placeAction(exportMenu, m_export->exportCudaAction(), first);
        QAction *cancel = m_export->cancelAction();
        exportMenu->insertAction(exportMenu->actions().value(2), cancel);
        exportMenu->addSeparator();
        exportMenu->addAction(m_export->outputFileAction());
        // Opening the menu is when CUDA matters: start the worker then, not at launch.
        connect(exportMenu, &QMenu::aboutToShow, m_export, [this] {
            if (m_document && m_document->hasCapture())
                m_export->ensureWorker();
        });
    }
    if (QMenu *file = findMenu(this, QStringLiteral("fileMenu"), tr("File"))) {
        QAction *before = nullptr;
        const QList<QAction *> actions = file->actions();
        for (int i = 0; i < actions.size(); ++i)
            if (actions.at(i)->objectName() == QLatin1String("actionOpenCapture"))
                before = actions.value(i + 1);
        placeAction(file, m_export->openModelAction(), before);
    }
    QMenu *view = findMenu(this, QStringLiteral("viewMenu"), tr("View"));
    if (view) {
        view->addAction(panelDock->toggleViewAction());
        view->addAction(resultDock->toggleViewAction());
    }

    connect(m_export, &ExportController::exportStarted, this, [panelDock] {
        panelDock->show();
        panelDock->raise();
    });
    connect(m_export, &ExportController::exportDone, this, [resultDock] {
        resultDock->show();
        resultDock->raise();
    });
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

} // namespace dimscope
