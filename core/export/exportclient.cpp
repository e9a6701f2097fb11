// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/exportclient.h"

#include "export/stagingfolders.h"
#include "export/workerprocessgroup.h"

#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonValue>

#include <cstring>
#include <string_view>

namespace dimscope {

namespace {
constexpr int kStderrTailLines = 40;
// The longest stderr line kept whole. A model that wrote 256 MB without a newline
// cost the client 2.3 GB and 29 s while every read searched and kept the whole line.
constexpr qsizetype kStderrLineBytes = 16 * 1024;
constexpr int kKeptOutcomes = 64;
constexpr int kDefaultSilenceMs = 60000;
// The worker beats this many times per silence timeout, at most every 5 s: a late
// beat or two (a loaded machine) is not mistaken for silence.
constexpr double kBeatsPerSilence = 4.0;
constexpr double kMaxHeartbeatS = 5.0;
// How long the destructor waits, in all, for killed workers to be reaped.
constexpr qint64 kExitReapMs = 1000;

// "signal 9 (SIGKILL)", "signal 11 (SIGSEGV)".
QString signalText(int signo)
{
    const char *abbrev = ::sigabbrev_np(signo);
    return abbrev ? QStringLiteral("signal %1 (SIG%2)").arg(signo).arg(QLatin1String(abbrev))
                  : QStringLiteral("signal %1").arg(signo);
}
} // namespace

ExportClient::ExportClient(QObject *parent)
    : QObject(parent)
    , m_runtime(PythonRuntime::discover())
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &ExportClient::onTimeout);
    m_silenceTimer.setSingleShot(true);
    connect(&m_silenceTimer, &QTimer::timeout, this, &ExportClient::onSilence);
}

ExportClient::~ExportClient()
{
    if (m_process) {
        m_process->disconnect(this);
        retireProcess(m_process);
        m_process = nullptr;
    }
    // The one wait: the client goes at the program's end (the window closing, the CLI
    // returning), where no event loop will reap the killed workers and remove their
    // save folders. SIGKILL makes it milliseconds; one stuck in the kernel past the
    // bound is left to its death signal and init rather than to ~QProcess, which
    // would wait for it for 30 s.
    QElapsedTimer waited;
    waited.start();
    for (QProcess *p : findChildren<QProcess *>(QString(), Qt::FindDirectChildrenOnly)) {
        if (!WorkerProcessGroup::reap(p, int(qMax<qint64>(0, kExitReapMs - waited.elapsed()))))
            p->setParent(nullptr);
    }
}

int ExportClient::defaultSilenceTimeout()
{
    bool ok = false;
    const double seconds = qEnvironmentVariable("DIMSCOPE_WORKER_SILENCE_S").toDouble(&ok);
    return ok && seconds >= 0 ? int(qMin(seconds * 1000.0, 2e9)) : kDefaultSilenceMs;
}

void ExportClient::setSilenceTimeout(int msecs)
{
    m_silenceTimeoutMs = qMax(0, msecs);
    m_silenceTimer.stop();
    armSilenceTimer();
}

void ExportClient::setRuntime(const PythonRuntime &runtime)
{
    m_runtime = runtime;
    if (m_process && !isBusy())
        killWorker(QStringLiteral("the Python runtime changed"));
}

bool ExportClient::isWorkerRunning() const
{
    return m_process && m_process->state() != QProcess::NotRunning;
}

qint64 ExportClient::workerPid() const
{
    return m_process ? m_process->processId() : 0;
}

int ExportClient::loadModel(const QString &ref, bool reload)
{
    QJsonObject p{{QStringLiteral("model"), ref}};
    if (reload)
        p.insert(QStringLiteral("reload"), true);
    return request(QStringLiteral("load_model"), p);
}

int ExportClient::describe(const QString &ref)
{
    QJsonObject p;
    if (!ref.isEmpty())
        p.insert(QStringLiteral("model"), ref);
    return request(QStringLiteral("describe"), p);
}

int ExportClient::exportModel(const ExportRequest &request)
{
    return this->request(QStringLiteral("export"), request.toParams());
}

int ExportClient::writeArchive(const QString &path, const QStringList &programs, bool verify, const QString &heldOut)
{
    QJsonObject params{{QStringLiteral("path"), QDir(path).absolutePath()},
                       {QStringLiteral("programs"), QJsonArray::fromStringList(programs)},
                       {QStringLiteral("verify"), verify}};
    if (!heldOut.isEmpty())
        params.insert(QStringLiteral("held_out"), QDir(heldOut).absolutePath());
    return request(QStringLiteral("write_archive"), params);
}

int ExportClient::record(const RecordRequest &request)
{
    return this->request(QStringLiteral("record"), request.toParams());
}

int ExportClient::synthesizeContinuation(const QString &model, const QString &capture, const QString &output)
{
    // Absolute, like every path a request carries: the worker runs in a private folder
    // (docs/worker-protocol.md, "Isolation"), where `dimscope-cli export --capture c.safetensors`
    // named no file and the continuation program was skipped ("capture file … does not exist").
    QJsonObject p{{QStringLiteral("capture"), QDir(capture).absolutePath()},
                  {QStringLiteral("output"), QDir(output).absolutePath()}};
    if (!model.isEmpty())
        p.insert(QStringLiteral("model"), model);
    return request(QStringLiteral("synthesize_continuation"), p);
}

int ExportClient::request(const QString &method, const QJsonObject &params)
{
    const int id = m_nextId++;
    const bool records = method == QLatin1String("record");
    m_pending.append({id, method, params, records ? OutputSnapshot::of(params.value(QLatin1String("output")).toString())
                                                  : OutputSnapshot()});
    ensureStarted();
    if (!m_process) // could not start: ensureStarted failed everything already
        return id;
    const QJsonObject msg{{QStringLiteral("id"), id}, {QStringLiteral("method"), method}, {QStringLiteral("params"), params}};
    // QProcess buffers what is written while it is still starting.
    m_process->write(QJsonDocument(msg).toJson(QJsonDocument::Compact) + '\n');
    armRequestTimer();
    return id;
}

void ExportClient::ensureStarted()
{
    if (m_process)
        return;
    m_ready = false;
    m_readyInfo = {};
    m_stdoutBuffer.clear();
    m_stderrBuffer.clear();
    m_stderrCut = 0;
    m_stderrTail.clear();
    if (!m_runtime.isValid()) {
        failAll(WorkerFailure::make(QStringLiteral("worker_start"), QStringLiteral("no Python interpreter found (set DIMSCOPE_PYTHON)")));
        return;
    }
    m_process = new QProcess(this);
    QProcessEnvironment env = m_runtime.environment();
    const double silenceS = (m_silenceTimeoutMs > 0 ? m_silenceTimeoutMs : kDefaultSilenceMs) / 1000.0;
    env.insert(QStringLiteral("DIMSCOPE_WORKER_HEARTBEAT_S"),
               QString::number(qMin(silenceS / kBeatsPerSilence, kMaxHeartbeatS)));
    m_process->setProcessEnvironment(env);
    QString error;
    if (!WorkerProcessGroup::prepare(m_process, &error)) {
        delete m_process;
        m_process = nullptr;
        failAll(WorkerFailure::make(QStringLiteral("worker_start"), error));
        return;
    }
    connect(m_process, &QProcess::readyReadStandardOutput, this, &ExportClient::onStdout);
    connect(m_process, &QProcess::readyReadStandardError, this, &ExportClient::onStderr);
    connect(m_process, &QProcess::errorOccurred, this, &ExportClient::onProcessError);
    connect(m_process, qOverload<int, QProcess::ExitStatus>(&QProcess::finished), this, &ExportClient::onProcessFinished);
    // Isolated (-P or its equivalent, in the private folder prepare() made): nothing in
    // the folder dimscope was started in is importable (docs/worker-protocol.md).
    m_process->start(m_runtime.program(), m_runtime.workerArguments());
    m_processPid = m_process ? m_process->processId() : 0; // start() may have failed it already
    armRequestTimer();
}

void ExportClient::armRequestTimer()
{
    if (!m_process) {
        m_timer.stop();
        return;
    }
    if (!m_ready) {
        if (!m_timer.isActive() && m_startTimeoutMs > 0)
            m_timer.start(m_startTimeoutMs);
        return;
    }
    if (m_pending.isEmpty() || m_requestTimeoutMs <= 0)
        m_timer.stop();
    else
        m_timer.start(m_requestTimeoutMs);
    armSilenceTimer();
}

void ExportClient::armSilenceTimer()
{
    if (!m_process || !m_ready || m_pending.isEmpty() || m_silenceTimeoutMs <= 0) {
        m_silenceTimer.stop();
        return;
    }
    if (m_silenceTimer.isActive())
        return; // already watching this run of requests
    m_lastHeard.start();
    m_silenceTimer.start(m_silenceTimeoutMs);
}

void ExportClient::heardFromWorker()
{
    // The timer is not restarted on every line: onSilence() looks at how long ago this was.
    m_lastHeard.start();
}

void ExportClient::onSilence()
{
    if (!m_process || m_pending.isEmpty())
        return;
    // Lines may wait in the pipe (this process was busy or suspended): read them first.
    m_process->waitForReadyRead(0);
    if (!m_process || m_pending.isEmpty())
        return;
    const qint64 quiet = m_lastHeard.elapsed();
    if (quiet < m_silenceTimeoutMs) {
        m_silenceTimer.start(int(m_silenceTimeoutMs - quiet));
        return;
    }
    const QString what = QStringLiteral("the worker sent nothing for %1 s while running %2 (stopped or deadlocked?); "
                                        "it was stopped")
                             .arg(m_silenceTimeoutMs / 1000.0)
                             .arg(m_pending.first().method);
    WorkerFailure f = WorkerFailure::make(QStringLiteral("worker_silent"), what);
    f.traceback = stderrTail();
    killWorker(what);
    failAll(f);
}

void ExportClient::onTimeout()
{
    if (!m_process)
        return;
    const QString what = m_ready
        ? QStringLiteral("the worker did not answer %1 within %2 s; it was stopped")
              .arg(m_pending.isEmpty() ? QStringLiteral("a request") : m_pending.first().method)
              .arg(m_requestTimeoutMs / 1000.0)
        : QStringLiteral("the worker (%1) did not start within %2 s; it was stopped")
              .arg(m_runtime.commandLine())
              .arg(m_startTimeoutMs / 1000.0);
    WorkerFailure f = WorkerFailure::make(m_ready ? QStringLiteral("timeout") : QStringLiteral("worker_start"), what);
    f.traceback = stderrTail();
    killWorker(what);
    failAll(f);
}

void ExportClient::cancel()
{
    if (!m_process && m_pending.isEmpty())
        return;
    killWorker(QStringLiteral("cancelled"));
    failAll(WorkerFailure::make(QStringLiteral("cancelled"), QStringLiteral("cancelled: the worker was stopped")));
}

void ExportClient::shutdown(int waitMsecs)
{
    if (!m_process)
        return;
    request(QStringLiteral("shutdown"));
    m_process->closeWriteChannel();
    if (!m_process->waitForFinished(waitMsecs))
        killWorker(QStringLiteral("shutdown timed out"));
}

void ExportClient::killWorker(const QString &reason)
{
    m_timer.stop();
    m_silenceTimer.stop();
    if (!m_process)
        return;
    QProcess *p = m_process;
    m_process = nullptr;
    m_ready = false;
    p->disconnect(this);
    retireProcess(p);
    emit workerStopped(reason);
}

void ExportClient::retireProcess(QProcess *process)
{
    // Only the signal is sent here: waiting for the group to die would block the
    // caller, which is the GUI thread for Cancel and a runtime change. QProcess reaps
    // the leader from the event loop; then its save folders go, and the object.
    const QStringList folders = outputFolders();
    QList<OutputSnapshot> recordings;
    for (const Pending &p : std::as_const(m_pending))
        if (!p.output.path().isEmpty())
            recordings << p.output;
    const qint64 pid = m_processPid;
    WorkerProcessGroup::kill(process);
    auto reaped = [process, folders, recordings, pid] {
        StagingFolders::removeLeftBy(pid, folders);
        // Its answer was never taken: a capture it had moved into place goes too, so a
        // cancelled recording is one that wrote nothing (recordingrun.h).
        for (const OutputSnapshot &output : recordings)
            if (output.replacedByCapture())
                QFile::remove(output.path());
        WorkerProcessGroup::release(process); // what it left running, its working folder
        process->deleteLater();
    };
    if (process->state() == QProcess::NotRunning) {
        reaped();
        return;
    }
    connect(process, qOverload<int, QProcess::ExitStatus>(&QProcess::finished), process, reaped);
    // Killed before it ran the worker: Qt reports a failed start instead of an exit.
    connect(process, &QProcess::errorOccurred, process, [reaped](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart)
            reaped();
    });
}

QStringList ExportClient::outputFolders() const
{
    // A worker killed while saving leaves its staging folder beside the output
    // (python/dimscope/worker/exporter.py, docs/worker-protocol.md); once it is dead the
    // half-written file in there goes, rather than waiting for the next export there.
    QStringList folders;
    // A recording writes its capture through the same kind of staging folder.
    for (const Pending &p : m_pending) {
        const bool named = p.method == QLatin1String("export") || p.method == QLatin1String("record");
        const bool writes = named || p.method == QLatin1String("write_archive");
        const QString output = p.params.value(named ? QLatin1String("output") : QLatin1String("path")).toString();
        if (writes && !output.isEmpty())
            folders << QFileInfo(output).absolutePath();
    }
    folders.removeDuplicates();
    return folders;
}

void ExportClient::onStdout()
{
    if (!m_process)
        return;
    const qsizetype searched = m_stdoutBuffer.size(); // the bytes before hold no line end
    m_stdoutBuffer += m_process->readAllStandardOutput();
    heardFromWorker(); // any line counts, heartbeat events included
    // Only the new bytes are searched, and the complete lines are taken out in one cut
    // before any is handled (a handler may run an event loop that reads more): a line
    // arriving in many pieces was searched from its start on every read (quadratic).
    const std::string_view added(m_stdoutBuffer.constData() + searched, size_t(m_stdoutBuffer.size() - searched));
    const size_t lastEnd = added.rfind('\n');
    if (lastEnd == std::string_view::npos)
        return;
    const qsizetype cut = searched + qsizetype(lastEnd) + 1;
    const QByteArray complete = m_stdoutBuffer.left(cut);
    m_stdoutBuffer.remove(0, cut);
    const QProcess *const process = m_process;
    for (qsizetype start = 0; start < complete.size();) {
        const qsizetype nl = complete.indexOf('\n', start);
        const QByteArray line = complete.mid(start, nl - start);
        start = nl + 1;
        if (!line.trimmed().isEmpty())
            handleLine(line);
        if (m_process != process)
            return; // a handler killed the worker (and maybe started another)
    }
}

void ExportClient::onStderr()
{
    if (!m_process)
        return;
    const QByteArray chunk = m_process->readAllStandardError();
    heardFromWorker();
    // Only the new bytes are searched for line ends, and a line keeps its first
    // kStderrLineBytes: the rest is counted, not stored.
    qsizetype from = 0;
    while (from < chunk.size()) {
        const qsizetype nl = chunk.indexOf('\n', from);
        const qsizetype end = nl < 0 ? chunk.size() : nl;
        const qsizetype kept = qMin(qMax<qsizetype>(0, kStderrLineBytes - m_stderrBuffer.size()), end - from);
        m_stderrBuffer.append(chunk.constData() + from, kept);
        m_stderrCut += (end - from) - kept;
        if (nl < 0)
            break;
        endStderrLine();
        from = nl + 1;
    }
}

void ExportClient::endStderrLine()
{
    const QString line = stderrLine();
    m_stderrBuffer.clear();
    m_stderrCut = 0;
    m_stderrTail.append(line);
    if (m_stderrTail.size() > kStderrTailLines)
        m_stderrTail.removeFirst();
    emit logLine(m_pending.isEmpty() ? -1 : m_pending.first().id, QStringLiteral("stderr"), line);
}

QString ExportClient::stderrLine() const
{
    // A cut inside a multi-byte character shows as U+FFFD.
    QString line = QString::fromUtf8(m_stderrBuffer);
    if (m_stderrCut > 0)
        line += QStringLiteral(" \u2026 (%1 bytes cut)").arg(m_stderrCut);
    return line;
}

QString ExportClient::stderrTail() const
{
    QStringList lines = m_stderrTail;
    if (!m_stderrBuffer.isEmpty() || m_stderrCut > 0)
        lines << stderrLine();
    return lines.join(QLatin1Char('\n'));
}

void ExportClient::handleLine(const QByteArray &line)
{
    QJsonParseError perr;
    const QJsonDocument doc = QJsonDocument::fromJson(line, &perr);
    if (!doc.isObject()) {
        if (!m_ready) {
            // Before the worker owns its stdout (an interpreter's sitecustomize printing):
            // show it rather than lose it.
            emit logLine(-1, QStringLiteral("stdout"), QString::fromUtf8(line));
            return;
        }
        // The worker keeps its protocol channel clean (user prints become log events):
        // anything else there means the channel is corrupted and no answer can be trusted.
        const QString what = QStringLiteral("the worker wrote a line that is not protocol JSON: '%1'; it was stopped")
                                 .arg(QString::fromUtf8(line.left(200)).trimmed());
        WorkerFailure f = WorkerFailure::make(QStringLiteral("protocol"), what);
        f.traceback = stderrTail();
        killWorker(what);
        failAll(f);
        return;
    }
    const QJsonObject ev = doc.object();
    const QString event = ev.value(QLatin1String("event")).toString();
    const QJsonValue idValue = ev.value(QLatin1String("id"));
    const int id = idValue.isDouble() ? idValue.toInt() : -1;
    if (event == QLatin1String("ready")) {
        m_ready = true;
        m_readyInfo = ev;
        armRequestTimer();
        emit workerStarted(ev);
    } else if (event == QLatin1String("progress")) {
        const QJsonValue f = ev.value(QLatin1String("fraction"));
        emit progress(id, ev.value(QLatin1String("stage")).toString(), ev.value(QLatin1String("message")).toString(),
                      f.isDouble() ? f.toDouble() : -1.0);
    } else if (event == QLatin1String("log")) {
        emit logLine(id, ev.value(QLatin1String("stream")).toString(), ev.value(QLatin1String("text")).toString());
    } else if (event == QLatin1String("result")) {
        complete(id, ev.value(QLatin1String("result")).toObject(), {});
    } else if (event == QLatin1String("error")) {
        const WorkerFailure f = WorkerFailure::fromJson(ev.value(QLatin1String("error")).toObject());
        if (id < 0) {
            // Not tied to a request: a startup failure (no torch) or a line the worker could not read.
            emit logLine(-1, QStringLiteral("worker"), f.kind + QStringLiteral(": ") + f.message);
            if (!m_ready)
                m_stderrTail.append(f.message);
            return;
        }
        complete(id, {}, f);
    }
}

void ExportClient::complete(int id, const QJsonObject &result, const WorkerFailure &failure)
{
    QString method;
    for (int i = 0; i < m_pending.size(); ++i) {
        if (m_pending.at(i).id == id) {
            method = m_pending.takeAt(i).method;
            break;
        }
    }
    if (method.isEmpty())
        return; // an answer to a request we already failed (timeout, cancel)
    m_outcomes.insert(id, {result, failure});
    m_outcomeOrder.append(id);
    while (m_outcomeOrder.size() > kKeptOutcomes)
        m_outcomes.remove(m_outcomeOrder.takeFirst());
    armRequestTimer();
    if (failure.isValid())
        emit requestFailed(id, method, failure);
    else
        emit requestResult(id, method, result);
    if (method == QLatin1String("export"))
        emit exportFinished(id, exportResultOf(id));
    emit finished(id);
}

ExportResult ExportClient::exportResultOf(int id) const
{
    const Outcome o = m_outcomes.value(id);
    return o.failure.isValid() ? ExportResult::fromFailure(o.failure) : ExportResult::fromResult(o.result);
}

void ExportClient::failAll(const WorkerFailure &failure)
{
    const QList<Pending> pending = m_pending;
    for (const Pending &p : pending)
        complete(p.id, {}, failure);
}

void ExportClient::onProcessError(QProcess::ProcessError error)
{
    if (error != QProcess::FailedToStart)
        return; // crashes arrive through finished()
    const QString msg = QStringLiteral("cannot start the Python worker %1 (%2): %3")
                            .arg(m_runtime.commandLine(), m_runtime.sourceName(), m_process ? m_process->errorString() : QString());
    killWorker(msg);
    failAll(WorkerFailure::make(QStringLiteral("worker_start"), msg));
}

void ExportClient::onProcessFinished(int exitCode, QProcess::ExitStatus status)
{
    onStdout(); // answers written just before exiting
    if (!m_process)
        return;
    onStderr();
    const bool wasReady = m_ready;
    // On a crash QProcess's exit code is the signal's number: say which one (SIGKILL is
    // the OOM killer or a user, SIGSEGV the model's native code).
    const QString how = status == QProcess::CrashExit ? QStringLiteral("was killed by %1").arg(signalText(exitCode))
                                                      : QStringLiteral("exited with code %1").arg(exitCode);
    const QString msg = wasReady
        ? QStringLiteral("the Python worker %1 while working").arg(how)
        : QStringLiteral("the Python worker (%1, %2) %3 before it was ready").arg(m_runtime.commandLine(), m_runtime.sourceName(), how);
    WorkerFailure f = WorkerFailure::make(wasReady ? QStringLiteral("worker_crashed") : QStringLiteral("worker_start"), msg);
    f.traceback = stderrTail();
    if (!f.traceback.isEmpty())
        f.message += QStringLiteral(": ") + f.traceback.section(QLatin1Char('\n'), -1).trimmed();
    killWorker(msg);
    if (!m_pending.isEmpty())
        failAll(f);
}

bool ExportClient::waitForFinished(int id, int msecs)
{
    if (m_outcomes.contains(id))
        return true;
    bool done = false;
    QEventLoop loop;
    const auto c = connect(this, &ExportClient::finished, &loop, [&](int fid) {
        if (fid == id) {
            done = true;
            loop.quit();
        }
    });
    QTimer guard;
    if (msecs >= 0) {
        guard.setSingleShot(true);
        connect(&guard, &QTimer::timeout, &loop, &QEventLoop::quit);
        guard.start(msecs);
    }
    loop.exec();
    disconnect(c);
    return done || m_outcomes.contains(id);
}

} // namespace dimscope
