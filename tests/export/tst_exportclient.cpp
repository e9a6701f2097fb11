// SPDX-License-Identifier: GPL-3.0-or-later
// ExportClient against the real Python worker: start, warm reuse, errors with
// tracebacks, cancel and crash recovery. Needs the torch runtime (scripts/setup).
#include "export/exportclient.h"
#include "export/recordrequest.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QTemporaryDir>
#include "deterministictestmain.h"

#include <csignal>

using namespace dimscope;

class TestExportClient : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void helloStartsTheWorkerOnce();
    void loadModelReusesTheModel();
    void badReferenceGivesTraceback();
    void cancelDuringRequestThenNextWorks();
    void crashBecomesClearError();
    void killedWorkerNamesTheSignal();
    void timeoutStopsAHungWorker();
    void stoppedWorkerIsSilentAndKilled();
    void slowRequestKeepsBeating();
    void unknownInterpreterIsAStartFailure();
    void cudaWithoutCudaIsClear();
    void demoExportKilledMidExportThenNextWorks();
    void cancelEndsTheDaemonTheModelStarted();
    void cancelledRecordingLeavesNoCapture();

private:
    QString model(const QString &name) const { return m_dir.filePath(QStringLiteral("models.py:")) + name; }
    QTemporaryDir m_dir;
};

void TestExportClient::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QFile f(m_dir.filePath(QStringLiteral("models.py")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("import os, time\n"
            "import torch\n"
            "class Small(torch.nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.lin = torch.nn.Linear(3, 2)\n"
            "    def forward(self, x):\n"
            "        return self.lin(x)\n"
            "def slow():\n"
            "    time.sleep(60)\n"
            "    return Small()\n"
            "def slow3():\n"
            "    time.sleep(3)\n"
            "    return Small()\n"
            "def crash():\n"
            "    os._exit(7)\n"
            "def daemon():\n" // a double fork with setsid(): out of the worker's group
            "    r, w = os.pipe()\n"
            "    middle = os.fork()\n"
            "    if middle == 0:\n"
            "        try:\n"
            "            os.setsid()\n"
            "            if os.fork() == 0:\n"
            "                os.write(w, str(os.getpid()).encode())\n"
            "                os.close(w)\n"
            "                time.sleep(600)\n"
            "        finally:\n"
            "            os._exit(0)\n"
            "    os.close(w)\n"
            "    os.waitpid(middle, 0)\n"
            "    with os.fdopen(r) as f, open(os.path.join(os.path.dirname(__file__), 'daemon.pid'), 'w') as out:\n"
            "        out.write(f.read())\n"
            "    return Small()\n");
    f.close();
    QFile b(m_dir.filePath(QStringLiteral("broken.py")));
    QVERIFY(b.open(QIODevice::WriteOnly));
    b.write("x = 1\nimport module_that_does_not_exist_anywhere\n");
    b.close();
    QString error, description;
    QVERIFY2(PythonRuntime::discover().check(&error, &description), qPrintable(error));
    qInfo("worker runtime: %s (%s)", qPrintable(description), qPrintable(PythonRuntime::discover().sourceName()));
}

void TestExportClient::helloStartsTheWorkerOnce()
{
    ExportClient client;
    QSignalSpy started(&client, &ExportClient::workerStarted);
    const int id = client.hello();
    QVERIFY(client.waitForFinished(id, 120000));
    QVERIFY2(!client.failureOf(id).isValid(), qPrintable(client.failureOf(id).toText()));
    const QJsonObject r = client.resultOf(id);
    QVERIFY(r.value(QLatin1String("torch")).toString().startsWith(QLatin1Char('2')));
    QVERIFY(r.value(QLatin1String("cuda")).toObject().contains(QLatin1String("available")));
    const qint64 pid = client.workerPid();
    QVERIFY(pid > 0);
    const int id2 = client.hello();
    QVERIFY(client.waitForFinished(id2, 60000));
    QCOMPARE(client.workerPid(), pid);
    QCOMPARE(started.count(), 1);
    QCOMPARE(client.resultOf(id2).value(QLatin1String("pid")).toInt(), int(pid));
}

void TestExportClient::loadModelReusesTheModel()
{
    ExportClient client;
    const int a = client.loadModel(model(QStringLiteral("Small")));
    const int b = client.loadModel(model(QStringLiteral("Small")));
    const int d = client.describe();
    QVERIFY(client.waitForFinished(d, 120000));
    QCOMPARE(client.resultOf(a).value(QLatin1String("reused")).toBool(), false);
    QCOMPARE(client.resultOf(b).value(QLatin1String("reused")).toBool(), true);
    const QJsonObject desc = client.resultOf(d);
    QCOMPARE(desc.value(QLatin1String("parameters")).toInt(), 3 * 2 + 2);
    QCOMPARE(desc.value(QLatin1String("signature")).toArray().first().toObject().value(QLatin1String("name")).toString(),
             QStringLiteral("x"));
}

void TestExportClient::badReferenceGivesTraceback()
{
    ExportClient client;
    QSignalSpy failed(&client, &ExportClient::requestFailed);
    const int id = client.loadModel(m_dir.filePath(QStringLiteral("broken.py:Model")));
    QVERIFY(client.waitForFinished(id, 120000));
    const WorkerFailure f = client.failureOf(id);
    QCOMPARE(f.kind, QStringLiteral("model_import"));
    QVERIFY2(f.message.contains(QLatin1String("module_that_does_not_exist_anywhere")), qPrintable(f.message));
    QVERIFY2(f.traceback.contains(QLatin1String("broken.py\", line 2")), qPrintable(f.traceback));
    QVERIFY(f.toText().contains(QLatin1String("ModuleNotFoundError")));
    QCOMPARE(failed.count(), 1);
    // the worker survived
    const int ok = client.loadModel(model(QStringLiteral("Small")));
    QVERIFY(client.waitForFinished(ok, 60000));
    QVERIFY(!client.failureOf(ok).isValid());
}

void TestExportClient::cancelDuringRequestThenNextWorks()
{
    ExportClient client;
    QSignalSpy progress(&client, &ExportClient::progress);
    const int slow = client.loadModel(model(QStringLiteral("slow")));
    // the worker has started on it when it reports progress
    QTRY_VERIFY_WITH_TIMEOUT(progress.count() > 0, 120000);
    const qint64 pid = client.workerPid();
    client.cancel();
    QVERIFY(client.hasOutcome(slow));
    QCOMPARE(client.failureOf(slow).kind, QStringLiteral("cancelled"));
    QVERIFY(!client.isBusy());
    const int next = client.loadModel(model(QStringLiteral("Small")));
    QVERIFY(client.waitForFinished(next, 120000));
    QVERIFY2(!client.failureOf(next).isValid(), qPrintable(client.failureOf(next).toText()));
    QVERIFY(client.workerPid() != pid);
}

void TestExportClient::crashBecomesClearError()
{
    ExportClient client;
    const int id = client.loadModel(model(QStringLiteral("crash")));
    QVERIFY(client.waitForFinished(id, 120000));
    const WorkerFailure f = client.failureOf(id);
    QCOMPARE(f.kind, QStringLiteral("worker_crashed"));
    QVERIFY2(f.message.contains(QLatin1String("exited with code 7")), qPrintable(f.message));
    const int next = client.hello();
    QVERIFY(client.waitForFinished(next, 120000));
    QVERIFY(!client.failureOf(next).isValid());
}

// A worker ended by a signal (the OOM killer's SIGKILL, a segfault in native code)
// says which signal, not just "crashed" (issue 26 item 11).
void TestExportClient::killedWorkerNamesTheSignal()
{
    ExportClient client;
    QSignalSpy progress(&client, &ExportClient::progress);
    const int slow = client.loadModel(model(QStringLiteral("slow")));
    QTRY_VERIFY_WITH_TIMEOUT(progress.count() > 0, 120000);
    QCOMPARE(::kill(pid_t(client.workerPid()), SIGKILL), 0);
    QVERIFY(client.waitForFinished(slow, 60000));
    const WorkerFailure f = client.failureOf(slow);
    QCOMPARE(f.kind, QStringLiteral("worker_crashed"));
    QVERIFY2(f.message.startsWith(QLatin1String("the Python worker was killed by signal 9 (SIGKILL) while working")),
             qPrintable(f.message));
}

void TestExportClient::timeoutStopsAHungWorker()
{
    ExportClient client;
    const int warm = client.hello();
    QVERIFY(client.waitForFinished(warm, 120000));
    client.setRequestTimeout(1500);
    const int id = client.loadModel(model(QStringLiteral("slow")));
    QVERIFY(client.waitForFinished(id, 30000));
    QCOMPARE(client.failureOf(id).kind, QStringLiteral("timeout"));
    QVERIFY(client.failureOf(id).message.contains(QLatin1String("load_model")));
    QVERIFY(!client.isWorkerRunning());
}

void TestExportClient::stoppedWorkerIsSilentAndKilled()
{
    ExportClient client;
    client.setSilenceTimeout(1500);
    QSignalSpy progress(&client, &ExportClient::progress);
    const int id = client.loadModel(model(QStringLiteral("slow")));
    QTRY_VERIFY_WITH_TIMEOUT(progress.count() > 0, 120000);
    const qint64 pid = client.workerPid();
    QCOMPARE(::kill(pid_t(pid), SIGSTOP), 0); // a stopped worker cannot beat
    QElapsedTimer waited;
    waited.start();
    QVERIFY(client.waitForFinished(id, 30000));
    QVERIFY(waited.elapsed() >= 1000);
    const WorkerFailure f = client.failureOf(id);
    QCOMPARE(f.kind, QStringLiteral("worker_silent"));
    QVERIFY2(f.message.contains(QLatin1String("sent nothing for 1.5 s while running load_model")), qPrintable(f.message));
    QVERIFY(!client.isWorkerRunning());
    // Killed and reaped, not left stopped; reaping happens in the event loop (the
    // kill does not wait for it, so that Cancel never blocks the GUI thread).
    QTRY_COMPARE_WITH_TIMEOUT(::kill(pid_t(pid), 0), -1, 5000);
}

void TestExportClient::slowRequestKeepsBeating()
{
    ExportClient client;
    client.setSilenceTimeout(1500); // before the worker starts: it then beats every 0.375 s
    const int id = client.loadModel(model(QStringLiteral("slow3")));
    QVERIFY(client.waitForFinished(id, 120000));
    QVERIFY2(!client.failureOf(id).isValid(), qPrintable(client.failureOf(id).toText()));
    QVERIFY(client.resultOf(id).value(QLatin1String("seconds")).toDouble() >= 3.0);
}

void TestExportClient::unknownInterpreterIsAStartFailure()
{
    ExportClient client;
    client.setRuntime(PythonRuntime::fromInterpreter(QStringLiteral("/nonexistent/python3")));
    const int id = client.hello();
    QVERIFY(client.waitForFinished(id, 30000));
    QCOMPARE(client.failureOf(id).kind, QStringLiteral("worker_start"));
    QVERIFY(client.failureOf(id).message.contains(QLatin1String("/nonexistent/python3")));
}

void TestExportClient::cudaWithoutCudaIsClear()
{
    ExportClient client;
    const int h = client.hello();
    QVERIFY(client.waitForFinished(h, 120000));
    if (client.resultOf(h).value(QLatin1String("cuda")).toObject().value(QLatin1String("available")).toBool())
        QSKIP("this machine has CUDA");
    ExportRequest r;
    r.model = model(QStringLiteral("Small"));
    r.capture = m_dir.filePath(QStringLiteral("none.safetensors"));
    r.output = m_dir.filePath(QStringLiteral("out.pt2"));
    r.device = QStringLiteral("cuda");
    QSignalSpy exported(&client, &ExportClient::exportFinished);
    const int id = client.exportModel(r);
    QVERIFY(client.waitForFinished(id, 60000));
    QCOMPARE(exported.count(), 1);
    const ExportResult res = exported.first().at(1).value<ExportResult>();
    QVERIFY(!res.ok);
    QCOMPARE(res.failure.kind, QStringLiteral("cuda_unavailable"));
    QVERIFY(res.failure.message.contains(QLatin1String("CUDA was requested")));
}

static QJsonObject demoSpec()
{
    const QByteArray text = R"J({"format": "dimscope.dynamic_shapes", "version": 1,
      "dims": [{"name": "seq_len", "min": 1, "max": null}, {"name": "past_len", "min": 0, "max": null},
               {"name": "mask_len", "min": 1, "max": null}],
      "dynamic_shapes": {"dict": {"input_ids": {"tensor": {"1": "seq_len"}},
        "attention_mask": {"tensor": {"1": "mask_len"}},
        "past_key_values": {"list": [
          {"list": [{"tensor": {"2": "past_len"}}, {"tensor": {"2": "past_len"}}]},
          {"list": [{"tensor": {"2": "past_len"}}, {"tensor": {"2": "past_len"}}]}]}}}})J";
    return QJsonDocument::fromJson(text).object();
}

void TestExportClient::demoExportKilledMidExportThenNextWorks()
{
    const PythonRuntime rt = PythonRuntime::discover();
    const QString capture = m_dir.filePath(QStringLiteral("demo.safetensors"));
    QProcess rec;
    rec.setProcessEnvironment(rt.environment());
    rec.start(rt.program(), rt.arguments() + QStringList{QStringLiteral("-c"),
              QStringLiteral("from dimscope.demo import record_demo_capture as r; r(%1)").arg(QLatin1Char('"') + capture + QLatin1Char('"'))});
    QVERIFY(rec.waitForFinished(180000));
    QVERIFY2(rec.exitCode() == 0, rec.readAllStandardError().constData());

    ExportClient client;
    ExportRequest r;
    r.model = QStringLiteral("dimscope.demo:make_model");
    r.capture = capture;
    r.spec = demoSpec();
    r.output = m_dir.filePath(QStringLiteral("demo.pt2"));
    QString stage;
    connect(&client, &ExportClient::progress, this, [&](int, const QString &s, const QString &, double) { stage = s; });
    const int first = client.exportModel(r);
    QTRY_COMPARE_WITH_TIMEOUT(stage, QStringLiteral("export"), 180000);
    client.cancel(); // kill mid-export
    QCOMPARE(client.failureOf(first).kind, QStringLiteral("cancelled"));
    QVERIFY(!QFileInfo::exists(r.output)); // never a half-written .pt2

    const int second = client.exportModel(r);
    QVERIFY(client.waitForFinished(second, 300000));
    const ExportResult res = client.exportResultOf(second);
    QVERIFY2(res.exported, qPrintable(res.failure.toText()));
    QVERIFY(QFileInfo::exists(r.output));
    // prefill (empty cache), 3 decode steps, second user turn, decode step: every call
    // replays through the exported program
    QCOMPARE(res.verification.size(), 6);
    for (int i = 0; i < res.verification.size(); ++i)
        QVERIFY2(res.verification[i].ok(), qPrintable(res.verification[i].message));
    QVERIFY2(res.ok, qPrintable(res.failure.toText()));
    QCOMPARE(res.exampleCall, 4); // the second user turn: the only call with all dims >= 2
    for (const CallVerification &row : res.verification)
        QVERIFY2(row.maxAbs() < 1e-4, qPrintable(res.verificationTable()));
    QVERIFY(!res.verificationTable().contains(QLatin1String("rejected")));
    // warm re-export
    const int third = client.exportModel(r);
    QVERIFY(client.waitForFinished(third, 300000));
    QVERIFY(client.exportResultOf(third).modelReused);

    // A program for an archive is kept in the worker, nothing written (issue 29); the
    // archive's one write, cancelled while its programs are checked in a new interpreter,
    // leaves neither the archive nor its staging folder.
    QDir folder(m_dir.filePath(QStringLiteral("archive")));
    QVERIFY(folder.mkpath(QStringLiteral(".")));
    r.output = r.archivePath = folder.filePath(QStringLiteral("demo.pt2"));
    r.archiveProgram = QStringLiteral("model");
    const int held = client.exportModel(r);
    QVERIFY(client.waitForFinished(held, 300000));
    QVERIFY2(client.exportResultOf(held).ok, qPrintable(client.exportResultOf(held).failure.toText()));
    QVERIFY(client.exportResultOf(held).held);
    QVERIFY(client.exportResultOf(held).freshProcess.status.isEmpty());
    QVERIFY(!QFileInfo::exists(r.output));
    stage.clear();
    const int write = client.writeArchive(r.archivePath, {QStringLiteral("model")}, true);
    QTRY_COMPARE_WITH_TIMEOUT(stage, QStringLiteral("fresh_process"), 180000);
    const auto staging = [&folder] {
        return folder.entryList({QStringLiteral(".dimscope-save-*")}, QDir::Dirs | QDir::Hidden);
    };
    QCOMPARE(staging().size(), 1); // the archive is written there, checked before the rename
    client.cancel();
    QCOMPARE(client.failureOf(write).kind, QStringLiteral("cancelled"));
    QTRY_VERIFY_WITH_TIMEOUT(staging().isEmpty(), 30000);
    QVERIFY(!QFileInfo::exists(r.output));
}

// Running, not a zombie (one no parent reaps counts as gone).
static bool running(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray text = stat.readAll();
    return text.mid(text.lastIndexOf(')') + 2, 1) != "Z";
}

// A daemon the model started by a double fork with setsid() leaves the worker's group,
// so killing the group missed it; it is reparented to this process (a child subreaper)
// and ended once the killed worker is reaped (issue 26, item 9).
void TestExportClient::cancelEndsTheDaemonTheModelStarted()
{
    ExportClient client;
    const int id = client.loadModel(model(QStringLiteral("daemon")));
    QVERIFY(client.waitForFinished(id, 120000));
    QVERIFY2(!client.failureOf(id).isValid(), qPrintable(client.failureOf(id).toText()));
    QFile pidFile(m_dir.filePath(QStringLiteral("daemon.pid")));
    QVERIFY(pidFile.open(QIODevice::ReadOnly));
    const qint64 pid = pidFile.readAll().toLongLong();
    QVERIFY(pid > 0);
    QVERIFY(running(pid));
    client.cancel();
    const auto cleanUp = qScopeGuard([pid] {
        if (running(pid))
            ::kill(pid_t(pid), SIGKILL);
    });
    QTRY_VERIFY_WITH_TIMEOUT(!running(pid), 5000);
}

// A recording cancelled just after its worker had moved the capture into place (its
// answer not read yet: Cancel clicked as it finished) leaves no capture: the file at
// the output is removed once the worker is reaped. Here the worker is held in loading
// its model (models.py:slow) while the file a finished worker would leave appears at
// the output. What is not a capture, or was there before, is left as it is.
void TestExportClient::cancelledRecordingLeavesNoCapture()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto writeFile = [](const QString &path, const QByteArray &bytes) {
        QFile f(path);
        return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
    };
    // A safetensors file with no tensors and dimscope's manifest key (docs/capture-format.md).
    const QByteArray header = R"({"__metadata__":{"dimscope.manifest":"{}"}})";
    QByteArray capture(8, '\0');
    capture[0] = char(header.size());
    capture += header;
    const QByteArray notes = "someone else's notes\n";

    struct Case {
        const char *name;
        bool before;           // a file at the output when the request is sent
        QByteArray appears;    // what lands at the output while the worker runs (empty: nothing)
        bool removed;
    };
    const Case cases[] = {
        {"new.safetensors", false, capture, true},
        {"replaced.safetensors", true, capture, true},
        {"untouched.safetensors", true, {}, false},
        {"other.safetensors", false, notes, false},
    };
    for (const Case &c : cases) {
        const QString output = dir.filePath(QString::fromLatin1(c.name));
        if (c.before)
            QVERIFY(writeFile(output, capture));
        {
            ExportClient client;
            RecordRequest r;
            r.model = model(QStringLiteral("slow"));
            r.prompts = PromptBatches::oneBatch({QStringLiteral("hello")}, QString());
            r.output = output;
            r.overwrite = c.before;
            QString stage;
            connect(&client, &ExportClient::progress, this, [&](int, const QString &s, const QString &, double) { stage = s; });
            const int id = client.record(r);
            QTRY_COMPARE_WITH_TIMEOUT(stage, QStringLiteral("load_model"), 120000);
            if (!c.appears.isEmpty()) { // moved into place: another file at the output
                const QString moved = dir.filePath(QStringLiteral("moved"));
                QVERIFY(writeFile(moved, c.appears));
                QFile::remove(output);
                QVERIFY(QFile::rename(moved, output));
            }
            client.cancel();
            QCOMPARE(client.failureOf(id).kind, QStringLiteral("cancelled"));
            // Removed once the event loop has reaped the worker (the GUI's way).
            if (c.removed)
                QTRY_VERIFY2_WITH_TIMEOUT(!QFileInfo::exists(output), c.name, 10000);
        } // the client's end reaps its killed worker at the latest
        QCOMPARE(QFileInfo::exists(output), !c.removed);
        if (!c.removed) {
            QFile f(output);
            QVERIFY2(f.open(QIODevice::ReadOnly), c.name);
            QCOMPARE(f.readAll(), c.appears.isEmpty() ? capture : c.appears);
        }
    }
}

DIMSCOPE_GUILESS_TEST_MAIN(TestExportClient)
#include "tst_exportclient.moc"
