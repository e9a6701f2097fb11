// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/recordingrun.h"

#include "export/exportclient.h"
#include "export/recordedproject.h"
#include "util/latestjob.h"

#include <QFile>

namespace dimscope {

namespace {

struct ProjectWritten {
    QStringList warnings;
    QString error;
};

} // namespace

RecordingRun::RecordingRun(ExportClient *client, QObject *parent)
    : QObject(parent), m_client(client), m_job(new LatestJob(this))
{
    connect(m_client, &ExportClient::finished, this, &RecordingRun::onRequestFinished);
    // A job dropped by cancel() has written its files by now (or never will): remove them.
    connect(m_job, &LatestJob::dropped, this, [this] {
        for (const QString &path : std::as_const(m_discard))
            QFile::remove(path);
        m_discard.clear();
    });
}

RecordingRun::~RecordingRun() = default;

void RecordingRun::start(const RecordRequest &request, const QString &projectPath)
{
    m_request = request;
    m_projectPath = projectPath;
    m_requestId = m_client->record(request);
}

void RecordingRun::onRequestFinished(int id)
{
    if (id != m_requestId)
        return;
    m_requestId = -1;
    const WorkerFailure failure = m_client->failureOf(id);
    if (failure.isValid()) {
        RecordingOutcome outcome;
        outcome.failure = failure;
        outcome.message = m_request.describe(failure);
        finish(outcome);
        return;
    }
    writeProject(m_client->resultOf(id));
}

void RecordingRun::writeProject(const QJsonObject &result)
{
    m_writing = true;
    const QString project = m_projectPath;
    const QString capture = m_request.output;
    const QString model = m_request.model;
    m_job->start(
        [project, capture, model](const LatestJob::Control &) {
            ProjectWritten written;
            RecordedProject::write(project, capture, model, &written.warnings, &written.error);
            return written;
        },
        [this, result](const ProjectWritten &written) {
            m_writing = false;
            RecordingOutcome outcome;
            outcome.result = result;
            outcome.warnings = written.warnings;
            if (!written.error.isEmpty()) { // the capture stays: it is complete
                outcome.failure = WorkerFailure::make(QStringLiteral("project"), written.error);
                outcome.message = tr("The capture %1 was recorded, but its project could not be written: %2")
                                      .arg(m_request.output, written.error);
            }
            finish(outcome);
        });
}

void RecordingRun::cancel()
{
    if (!isRunning())
        return;
    if (m_writing) {
        m_writing = false;
        m_discard = {m_request.output, m_projectPath};
        m_job->cancel();
    } else {
        m_requestId = -1; // its "cancelled" failure is this outcome
        m_client->cancel();
    }
    RecordingOutcome outcome;
    outcome.failure = WorkerFailure::make(QStringLiteral("cancelled"), tr("Recording cancelled: nothing was written."));
    outcome.message = outcome.failure.message;
    finish(outcome);
}

void RecordingRun::finish(RecordingOutcome outcome)
{
    outcome.capturePath = m_request.output;
    outcome.projectPath = m_projectPath;
    emit finished(outcome);
}

} // namespace dimscope
