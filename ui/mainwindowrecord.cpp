// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow's recording side (issue 21), kept apart from mainwindow.cpp: File > New
// Recording… and Record More Calls… (RecordingController), the welcome page's entry,
// the recording in the Export dock (its progress through the export controller's
// ExportProgress, which the dock and the status bar show; Cancel is the dock's), and
// the Export dock's account of what made the open capture.
#include "mainwindow.h"

#include "document/projectdocument.h"
#include "exportcontroller.h"
#include "exportpanel.h"
#include "messagebanner.h"
#include "recording/recordingsummary.h"
#include "recordingcontroller.h"
#include "welcomepage.h"

#include <QDockWidget>
#include <QStatusBar>

namespace dimscope {

void MainWindow::createRecording()
{
    m_recording = new RecordingController(m_document, m_export, m_project, this);
    auto *dock = findChild<QDockWidget *>(QStringLiteral("exportDock"));
    connect(m_recording, &RecordingController::recordingStarted, this, [this, dock](const QString &what) {
        m_banner->hide();
        m_exportPanel->started(what);
        if (dock) {
            dock->show();
            dock->raise();
        }
    });
    connect(m_recording, &RecordingController::recordingRefused, this, [this](const QString &why) {
        m_exportPanel->finished(false, why);
        m_banner->showMessage(MessageBanner::Kind::Error, why);
    });
    connect(m_recording, &RecordingController::recordingFinished, this, [this](bool ok, const QString &summary) {
        m_exportPanel->finished(ok, summary);
        statusBar()->showMessage(summary, 15000);
        if (!ok)
            m_banner->showMessage(MessageBanner::Kind::Error, summary);
    });
    connect(m_welcome, &WelcomePage::newRecordingRequested, m_recording, &RecordingController::newRecording);
    // Which model, prompts and settings made the open capture (its `recording`).
    connect(m_document, &ProjectDocument::captureChanged, this, [this] {
        m_exportPanel->setRecording(m_document->hasCapture() ? RecordingSummary::describe(m_document->capture().recording)
                                                             : QString());
    });
}

} // namespace dimscope
