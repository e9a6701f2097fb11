// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/recordingrun.h"

#include <QObject>
#include <QPointer>

class QAction;
class QWidget;

namespace dimscope {

class ExportController;
class ProjectController;
class ProjectDocument;
class RecordingForm;

// File > New Recording… and Record More Calls… (issue 21 items 1–4): the dialog, the
// question about a folder's own code (ModelConsent::askRemoteCode; the yes is the
// files' hashes, sent in the request) and about an inputs script (the yes is its
// SHA-256, sent as inputs_script_sha256), the recording on the export worker
// (ExportService::startRecording: progress, Cancel, the project written off the GUI
// thread), then the recorded project opened through the ProjectController, its model
// the user's choice (so Export on CPU runs it without asking). Record More records the
// capture's own calls again, then the new prompts, into a new capture and project
// beside it; the open ones stay as they were.
class RecordingController : public QObject
{
    Q_OBJECT
public:
    RecordingController(ProjectDocument *document, ExportController *exporter, ProjectController *project,
                        QWidget *window);

    QAction *newRecordingAction() const { return m_new; }
    QAction *recordMoreAction() const { return m_more; }

    // The dialogs; false when cancelled or the recording could not start.
    bool newRecording();
    bool recordMore();
    // Records what `form` says (the dialog's); `replace`: the user agreed to replace the
    // outputs that exist. False, with the reason in lastError() and recordingRefused,
    // when it does not start (an error in the form, a folder's code not allowed, busy).
    bool start(const RecordingForm &form, bool replace);
    bool isRecording() const;
    QString lastError() const { return m_lastError; }

signals:
    void recordingStarted(const QString &what);
    void recordingRefused(const QString &why);
    // The end: `summary` says what was recorded, with the time and the peak memory the
    // worker reports, or why it failed ("cancelled" included). On success the
    // project has opened (or failed to, which the window's opener reports).
    void recordingFinished(bool ok, const QString &summary);

private:
    void updateActions();
    bool refuse(const QString &why);
    bool consentToRemoteCode(const QString &folder, QJsonObject *consent);
    bool consentToInputsScript(const RecordingForm &form, QString *sha256);
    void onFinished(const RecordingOutcome &outcome);
    void openRecorded(const RecordingOutcome &outcome);

    QPointer<ProjectDocument> m_document;
    ExportController *m_exporter;
    ProjectController *m_project;
    QPointer<QWidget> m_window;
    QAction *m_new;
    QAction *m_more;
    QString m_model; // the model the running recording uses: the opened project's
    QString m_lastError;
    bool m_running = false;
};

} // namespace dimscope
