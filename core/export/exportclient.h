// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/exportrequest.h"
#include "export/exportresult.h"
#include "export/outputsnapshot.h"
#include "export/pythonruntime.h"
#include "export/recordrequest.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QTimer>

namespace dimscope {

// Drives the Python export worker (python -m dimscope.worker) over QProcess.
// Everything is asynchronous: a request returns its id at once, the answer comes
// as finished() (with requestResult() or requestFailed() before it). The worker is
// started on the first request and kept warm; cancel() kills it and fails what was
// pending, the next request starts a fresh one. A crash, a worker that does not
// start, a worker that goes silent during a request (stopped, deadlocked: it sends a
// heartbeat while it works) or a request that runs past its timeout become failures
// (kinds worker_crashed, worker_start, worker_silent, protocol, timeout, cancelled), never a
// blocked caller. The worker runs in its own process group with a death signal
// (WorkerProcessGroup): killing it kills the group, and it dies with this process. It
// starts isolated (PythonRuntime::workerArguments) in a private working folder, so
// nothing in the folder dimscope was started in is imported; once it has exited,
// however it ended, what it started and left running is ended (WorkerDescendants).
// Killing never waits (cancel, a runtime change, a failure: the GUI thread): the dead
// worker is reaped from the event loop; only the destructor waits, briefly.
class ExportClient : public QObject
{
    Q_OBJECT
public:
    explicit ExportClient(QObject *parent = nullptr);
    ~ExportClient() override;

    void setRuntime(const PythonRuntime &runtime);
    PythonRuntime runtime() const { return m_runtime; }
    // Start: until the worker says it is ready (importing torch). Request: per request,
    // from when the worker starts on it; 0 = no limit.
    void setStartTimeout(int msecs) { m_startTimeoutMs = msecs; }
    void setRequestTimeout(int msecs) { m_requestTimeoutMs = msecs; }
    // Silence: while a request runs, the longest time without a line from the worker
    // (it beats every few seconds) before it is killed; 0 = never. Default 60 s, or
    // $DIMSCOPE_WORKER_SILENCE_S. The worker's heartbeat interval is derived from it
    // when the worker starts.
    void setSilenceTimeout(int msecs);
    int silenceTimeout() const { return m_silenceTimeoutMs; }
    static int defaultSilenceTimeout();

    bool isWorkerRunning() const;
    bool isBusy() const { return !m_pending.isEmpty(); }
    QJsonObject readyInfo() const { return m_readyInfo; } // the worker's "ready" event
    qint64 workerPid() const;

    int request(const QString &method, const QJsonObject &params = {});
    int hello() { return request(QStringLiteral("hello")); }
    int loadModel(const QString &ref, bool reload = false);
    int describe(const QString &ref = {});
    int exportModel(const ExportRequest &request);
    // Writes the programs the worker kept for the archive `path` (export requests with
    // an archive), in this order, once, and with `verify` checks them in one new
    // interpreter (docs/worker-protocol.md, "Several programs in one archive"); there
    // too the calls of the capture `heldOut`, when given ("Held-out calls").
    int writeArchive(const QString &path, const QStringList &programs, bool verify, const QString &heldOut = {});

    // Records the continuation program's example calls, synthesized from the capture
    // of a decoder's generate(), into the capture file `output` (docs/worker-protocol.md).
    int synthesizeContinuation(const QString &model, const QString &capture, const QString &output);

    // Runs generate() on the request's prompts under the recorder and writes the
    // capture (docs/worker-protocol.md, "record"); progress per forward call and per
    // generate() call. Cancel kills the worker, and its staging folder goes with it;
    // so does the capture when the worker had moved it into place before it was killed
    // (its answer not read yet): a killed recording leaves no file.
    int record(const RecordRequest &request);

    // Kills the worker; every pending request fails with kind "cancelled".
    void cancel();
    // Asks the worker to exit (after pending requests), for a clean shutdown. Blocks
    // up to waitMsecs: for command-line tools; the GUI never calls it.
    void shutdown(int waitMsecs = 3000);

    // For command-line tools and tests: spins a local event loop until request `id`
    // has finished (or msecs passed; -1 = no limit). Returns true when it finished.
    bool waitForFinished(int id, int msecs = -1);
    // The outcome of a finished request (kept for the last few requests).
    bool hasOutcome(int id) const { return m_outcomes.contains(id); }
    QJsonObject resultOf(int id) const { return m_outcomes.value(id).result; }
    WorkerFailure failureOf(int id) const { return m_outcomes.value(id).failure; }
    ExportResult exportResultOf(int id) const;

signals:
    void workerStarted(const QJsonObject &ready);
    void workerStopped(const QString &reason);
    void progress(int id, const QString &stage, const QString &message, double fraction); // fraction < 0: unknown
    void logLine(int id, const QString &stream, const QString &text);
    void requestResult(int id, const QString &method, const QJsonObject &result);
    void requestFailed(int id, const QString &method, const dimscope::WorkerFailure &failure);
    void exportFinished(int id, const dimscope::ExportResult &result); // export requests, ok or not
    void finished(int id);

private:
    struct Pending {
        int id;
        QString method;
        QJsonObject params;
        OutputSnapshot output; // a recording's: what its output path named when it was sent
    };
    struct Outcome {
        QJsonObject result;
        WorkerFailure failure;
    };

    void ensureStarted();
    void onStdout();
    void onStderr();
    void onProcessError(QProcess::ProcessError error);
    void onProcessFinished(int exitCode, QProcess::ExitStatus status);
    void handleLine(const QByteArray &line);
    void complete(int id, const QJsonObject &result, const WorkerFailure &failure);
    void failAll(const WorkerFailure &failure);
    void killWorker(const QString &reason);
    void retireProcess(QProcess *process);
    QStringList outputFolders() const; // of the pending exports: where a killed worker's staging folder is
    void armRequestTimer();
    void armSilenceTimer();
    void heardFromWorker();
    void onTimeout();
    void onSilence();
    QString stderrTail() const;
    void endStderrLine();
    QString stderrLine() const; // the line being read, with what was cut from it

    PythonRuntime m_runtime;
    QProcess *m_process = nullptr;
    qint64 m_processPid = 0; // m_process's, kept after it exits: names its save folder
    bool m_ready = false;
    QJsonObject m_readyInfo;
    QList<Pending> m_pending; // in the order the worker answers them
    QHash<int, Outcome> m_outcomes;
    QList<int> m_outcomeOrder;
    QByteArray m_stdoutBuffer;
    QByteArray m_stderrBuffer; // the line being read: at most kStderrLineBytes of it
    qint64 m_stderrCut = 0;    // bytes of that line past kStderrLineBytes, counted only
    QStringList m_stderrTail;
    QTimer m_timer;
    QTimer m_silenceTimer;
    QElapsedTimer m_lastHeard;
    int m_nextId = 1;
    int m_startTimeoutMs = 180000;
    int m_requestTimeoutMs = 0;
    int m_silenceTimeoutMs = defaultSilenceTimeout();
};

} // namespace dimscope
