// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/exportresult.h"
#include "export/recordrequest.h"

#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QStringList>

namespace dimscope {

class ExportClient;
class LatestJob;

// What a recording ended with: the worker's `record` result, or its failure
// (cancelled included); then the project written beside it.
struct RecordingOutcome {
    QJsonObject result;    // the worker's result (docs/worker-protocol.md, "record")
    WorkerFailure failure; // valid when the recording or the project failed
    QString message;       // the failure for the user, with the prompt's place first
    QString capturePath;
    QString projectPath;
    QStringList warnings;  // inference's, about the project's constraints
    bool ok() const { return !failure.isValid(); }
    bool cancelled() const { return failure.kind == QLatin1String("cancelled"); }
};

// One recording as the GUI runs it (issue 21 items 2 and 3): the worker's `record`
// request over the caller's ExportClient (progress per forward call and per generate()
// call come through the client's signals), then the project (RecordedProject: the
// capture, the model reference, the inferred constraints) written on the thread pool
// (LatestJob), so the capture is read and analysed off the calling thread. cancel()
// kills the worker (its staging folder goes with it: no capture is left) or, once the
// capture is written, drops the project's job and removes both files when it ends.
// One recording at a time.
class RecordingRun : public QObject
{
    Q_OBJECT
public:
    explicit RecordingRun(ExportClient *client, QObject *parent = nullptr);
    ~RecordingRun() override;

    void start(const RecordRequest &request, const QString &projectPath);
    bool isRunning() const { return m_requestId >= 0 || m_writing; }
    void cancel();

signals:
    void finished(const dimscope::RecordingOutcome &outcome);

private:
    void onRequestFinished(int id);
    void writeProject(const QJsonObject &result);
    void finish(RecordingOutcome outcome);

    QPointer<ExportClient> m_client;
    LatestJob *m_job;
    RecordRequest m_request;
    QString m_projectPath;
    int m_requestId = -1;
    bool m_writing = false;
    // A cancel while the project was written: both files go once that job has ended.
    QStringList m_discard;
};

} // namespace dimscope
