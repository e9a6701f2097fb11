// SPDX-License-Identifier: GPL-3.0-or-later
// Export from the menu, end to end with the real Python worker (scripts/torch-python's
// interpreter): the demo project exports on CPU through the menu action and the result
// view shows the program read back with the user's Dim names; the tutorial's failing
// model shows its violations and fixes, "Apply fixes" is one undo step, and the
// re-export succeeds. Offscreen; needs the torch runtime (scripts/setup).
#include "export/exportclient.h"
#include "export/pythonruntime.h"
#include "elidedlabel.h"
#include "exportcontroller.h"
#include "exportpanel.h"
#include "explanationspanel.h"
#include "document/exportresults.h"
#include "exportresultview.h"
#include "filedialoganswer.h"
#include "heldoutview.h"
#include "models/heldoutmodel.h"
#include "models/servedrangesmodel.h"
#include "models/explanationsmodel.h"
#include "models/dimsmodel.h"
#include "dimspanel.h"
#include "document/documentopener.h"
#include "mainwindow.h"
#include "projectcontroller.h"
#include "messagebanner.h"
#include "modelconsent.h"
#include "models/programsmodel.h"
#include "models/pt2inputsmodel.h"
#include "models/verificationmodel.h"
#include "openmodeldialog.h"
#include "preferencesdialog.h"
#include "project/projectfile.h"
#include "constraints/constraintsetjson.h"
#include "document/projectdocument.h"
#include "pt2programview.h"
#include "export/exporthints.h"
#include "settings/settingskeys.h"

#include <memory>

#include <QAbstractItemModelTester>
#include <QCryptographicHash>
#include <QDir>
#include <QDockWidget>
#include <QRegularExpression>
#include <QAction>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSet>
#include <QMessageBox>
#include <QTimer>
#include <QApplication>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include "deterministictestmain.h"
#include "throwawaysettings.h"
#include <QTreeWidget>
#include <QUndoStack>

#include <sys/stat.h>

using namespace dimscope;

namespace {

constexpr int kExportTimeout = 300000; // torch import + export on a loaded machine

QString demoProject() { return QStringLiteral(DIMSCOPE_SOURCE_DIR "/resources/demo/demo.dimscope"); }

// DIMSCOPE_EXPORTUI_SHOTS=folder: saves what the window shows, to look at by hand.
void shot(QWidget *window, const QString &name, const char *dockName = nullptr)
{
    const QString folder = qEnvironmentVariable("DIMSCOPE_EXPORTUI_SHOTS");
    if (folder.isEmpty())
        return;
    window->resize(1400, 900);
    window->show();
    QTest::qWait(100);
    if (auto *dock = dockName ? window->findChild<QDockWidget *>(QLatin1String(dockName)) : nullptr)
        dock->raise();
    QTest::qWait(200);
    window->grab().save(QDir(folder).filePath(name));
}

QAction *action(QWidget *window, const char *name)
{
    return window->findChild<QAction *>(QLatin1String(name));
}

// Rows of a model column as strings.
QStringList column(const QAbstractItemModel *model, int col)
{
    QStringList out;
    for (int r = 0; r < model->rowCount(); ++r)
        out << model->index(r, col).data().toString();
    return out;
}

void writeText(const QString &path, const QByteArray &text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(text), qint64(text.size()));
}

QByteArray readText(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Answers every model consent question while it lives: clicks `button` (an empty name
// rejects, as Cancel or Escape do), counting the questions and keeping the last text.
class ConsentAnswerer
{
public:
    explicit ConsentAnswerer(const QString &button)
    {
        QObject::connect(&m_timer, &QTimer::timeout, &m_timer, [this, button] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            if (!box || box->objectName() != QLatin1String("modelConsentDialog") || box->property("answered").toBool())
                return;
            box->setProperty("answered", true);
            ++asked;
            shown = box->informativeText();
            if (auto *b = button.isEmpty() ? nullptr : box->findChild<QPushButton *>(button))
                b->click();
            else
                box->reject();
        });
        m_timer.start(20);
    }
    int asked = 0;
    QString shown;

private:
    QTimer m_timer;
};

// The folder the GUI runs in, for one test.
class WorkingDirectory
{
public:
    explicit WorkingDirectory(const QString &path) : m_before(QDir::currentPath()) { QDir::setCurrent(path); }
    ~WorkingDirectory() { QDir::setCurrent(m_before); }

private:
    QString m_before;
};

// The Tutorial model that leaves `marker` when its file runs.
QByteArray markingModel(const QString &marker)
{
    return "import torch\nopen(" + QByteArray("'") + QFile::encodeName(marker) + "', 'w').write('ran')\n"
           "class Tutorial(torch.nn.Module):\n    def forward(self, x, y):\n        return x + y\n"
           "def make():\n    raise SystemExit('the hostile model ran')\n";
}

// An interpreter for the export worker that appends every line it is sent to `log`,
// then runs scripts/torch-python (as scripts/device-plan's worker-python does).
QString requestLoggingPython(const QString &path, const QString &log)
{
    const QByteArray script = "#!/usr/bin/env bash\n"
                              "unset DIMSCOPE_PYTHON  # torch-python would run this wrapper again\n"
                              "tee -a '" + QFile::encodeName(log) + "' | '" DIMSCOPE_SOURCE_DIR "/scripts/torch-python' \"$@\"\n";
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(script) != script.size())
        return {};
    f.close();
    f.setPermissions(f.permissions() | QFileDevice::ExeOwner);
    return path;
}

// The params of the first `export` request among the JSON lines of `log`, without the
// output path; empty when there is none.
QJsonObject firstExportParams(const QString &log)
{
    for (const QByteArray &line : readText(log).split('\n')) {
        const QJsonObject request = QJsonDocument::fromJson(line).object();
        if (request.value(QLatin1String("method")).toString() == QLatin1String("export")) {
            QJsonObject params = request.value(QLatin1String("params")).toObject();
            params.remove(QStringLiteral("output"));
            // The archive is the output file too (issue 29 item 2): its program name is compared.
            QJsonObject archive = params.value(QLatin1String("archive")).toObject();
            if (!archive.isEmpty()) {
                archive.remove(QStringLiteral("path"));
                params.insert(QStringLiteral("archive"), archive);
            }
            return params;
        }
    }
    return {};
}

// "key: A | B" for each key whose values differ, to say why two requests are not equal.
QString differences(const QJsonObject &a, const QJsonObject &b)
{
    QStringList keys = a.keys() + b.keys();
    keys.removeDuplicates();
    QStringList out;
    for (const QString &key : keys) {
        if (a.value(key) != b.value(key)) {
            const auto text = [](const QJsonValue &v) {
                return QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact)).mid(1).chopped(1);
            };
            out << key + QStringLiteral(": ") + text(a.value(key)) + QStringLiteral(" | ") + text(b.value(key));
        }
    }
    return out.join(QLatin1Char('\n'));
}

} // namespace

class TestExportUi : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void openModelDialogClassifies();
    void demoExportOnCpuThroughMenu();
    void cudaExportSendsTheClisRequest();
    void tutorialFailsApplyFixesThenReexport();
    void prefillExampleProposesABetterCall();
    void realModelExportsEveryCallThroughPhases();
    void verifyWithRefusesACaptureThatDoesNotFit();
    void projectModelRunsOnlyAfterTheUserSaysSo();
    void disguisedDimscopeReferenceNeverRuns();
    void projectModelBesideItRunsWhereverTheGuiStarted();
    void consentShowsTheModelPathEscaped();
    void changedModelFileAsksAgainAndPreferencesRevoke();
    void unreadableModelFileIsRefusedNotAsked();
    void whyPanelNamesTheModelsLines_data();
    void whyPanelNamesTheModelsLines();

private:
    bool openProject(MainWindow &window, const QString &path);
    QTemporaryDir m_dir;
};

void TestExportUi::initTestCase()
{
    QVERIFY(test::useThrowawaySettings(m_dir, QStringLiteral("tst_exportui")));
    QString error, description;
    QVERIFY2(PythonRuntime::discover().check(&error, &description), qPrintable(error));

    // The tutorial's failing model and a capture of three calls, written now with the
    // real recorder so the test follows the capture format as it is.
    QFile model(m_dir.filePath(QStringLiteral("tutorial.py")));
    QVERIFY(model.open(QIODevice::WriteOnly));
    model.write("import torch\n"
                "class Tutorial(torch.nn.Module):\n"
                "    def forward(self, x, y):\n"
                "        w = x + y\n"
                "        return w + torch.ones(4)\n");
    model.close();
    const QString script = QStringLiteral(
        "import sys, torch\n"
        "sys.path.insert(0, sys.argv[1])\n"
        "from tutorial import Tutorial\n"
        "from dimscope.capture import InputRecorder\n"
        "torch.manual_seed(0)\n"
        "m = Tutorial()\n"
        "rec = InputRecorder(store_n_calls=3)\n"
        "with rec(m):\n"
        "    for n in (5, 7, 6):\n"
        "        m(torch.randn(n, 4), torch.randn(n, 4))\n"
        "rec.save(sys.argv[2])\n");
    QProcess python;
    python.setProcessChannelMode(QProcess::MergedChannels);
    python.start(QStringLiteral(DIMSCOPE_SOURCE_DIR "/scripts/torch-python"),
                 {QStringLiteral("-c"), script, m_dir.path(), m_dir.filePath(QStringLiteral("tutorial.safetensors"))});
    QVERIFY(python.waitForFinished(180000));
    QVERIFY2(python.exitCode() == 0, python.readAll().constData());

    // The project: the tutorial's spec, x: (dx, d1), y: (dy, d1).
    ProjectFile project;
    project.capturePath = m_dir.filePath(QStringLiteral("tutorial.safetensors"));
    project.modelRef = m_dir.filePath(QStringLiteral("tutorial.py")) + QStringLiteral(":Tutorial");
    ConstraintSet set;
    for (const char *name : {"dx", "dy", "d1"})
        QCOMPARE(set.addRootDim(QLatin1String(name)), QString());
    QCOMPARE(set.setLeaf(QStringLiteral("x"), {DimAssignment::named(QStringLiteral("dx")), DimAssignment::named(QStringLiteral("d1"))}), QString());
    QCOMPARE(set.setLeaf(QStringLiteral("y"), {DimAssignment::named(QStringLiteral("dy")), DimAssignment::named(QStringLiteral("d1"))}), QString());
    project.constraints = set;
    project.exportOptions.fixLoop = false; // the tutorial's loop by hand: fail, Apply fixes, Re-export
    QVERIFY2(ProjectFile::write(m_dir.filePath(QStringLiteral("tutorial.dimscope")), project, &error), qPrintable(error));
}

void TestExportUi::init() { QSettings().clear(); }

// Opens a project through the window (File > Open Project's path): the capture loads
// off the GUI thread, then the project's constraints, model and options apply.
bool TestExportUi::openProject(MainWindow &window, const QString &path)
{
    QSignalSpy shown(&window, &MainWindow::captureShown);
    if (!window.openFile(path) || !shown.wait(120000))
        return false;
    return window.document()->hasCapture()
        && QFileInfo(window.document()->projectPath()).canonicalFilePath() == QFileInfo(path).canonicalFilePath();
}

void TestExportUi::openModelDialogClassifies()
{
    using K = OpenModelDialog::Kind;
    QString why;
    QCOMPARE(OpenModelDialog::classify(QStringLiteral("dimscope.demo:make_model"), &why), K::PythonModule);
    QCOMPARE(OpenModelDialog::classify(m_dir.filePath(QStringLiteral("tutorial.py:Tutorial")), &why), K::PythonFile);
    QCOMPARE(OpenModelDialog::classify(m_dir.filePath(QStringLiteral("missing.py:Tutorial")), &why), K::Invalid);
    QVERIFY(why.contains(QLatin1String("no such file")));
    QCOMPARE(OpenModelDialog::classify(QStringLiteral("dimscope.demo:"), &why), K::Invalid);
    QCOMPARE(OpenModelDialog::classify(QStringLiteral("dimscope.demo:make-model"), &why), K::Invalid);
    QCOMPARE(OpenModelDialog::classify(QStringLiteral("dimscope./../tutorial.py:Tutorial"), &why), K::Invalid);
    QVERIFY2(why.contains(QLatin1String("names dimscope's own package")), qPrintable(why));
    QCOMPARE(OpenModelDialog::classify(m_dir.path(), &why), K::Invalid); // no config.json
    QVERIFY(why.contains(QLatin1String("config.json")));
    QDir(m_dir.path()).mkdir(QStringLiteral("hf"));
    QFile config(m_dir.filePath(QStringLiteral("hf/config.json")));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write("{}");
    config.close();
    QCOMPARE(OpenModelDialog::classify(m_dir.filePath(QStringLiteral("hf")), &why), K::HuggingFaceFolder);
    OpenModelDialog dialog;
    dialog.setReference(QStringLiteral("not a reference"));
    QCOMPARE(dialog.kind(), K::Invalid);
}

void TestExportUi::demoExportOnCpuThroughMenu()
{
    MainWindow window;
    ExportController *exporter = window.exportController();
    QVERIFY(exporter);
    // Testers first: they must see the models being populated.
    QAbstractItemModelTester verificationTester(window.exportResultView()->verificationModel(),
                                                QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester inputsTester(window.exportResultView()->programView()->inputsModel(),
                                          QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAction *cpu = action(&window, "actionExportCpu");
    QAction *cuda = action(&window, "actionExportCuda");
    QVERIFY(cpu && cuda);
    QVERIFY(!cpu->isEnabled()); // nothing open
    QVERIFY(!cuda->isEnabled());
    QVERIFY(!cuda->toolTip().isEmpty());

    QVERIFY(openProject(window, demoProject()));
    QCOMPARE(window.document()->modelRef(), QStringLiteral("dimscope.demo:make_model"));
    QVERIFY(cpu->isEnabled());
    const QString output = m_dir.filePath(QStringLiteral("demo.pt2"));
    exporter->setOutputPath(output);
    QCOMPARE(exporter->state(), ExportController::WorkerState::NotStarted);

    // Progress (issue 28, problem 9): the step and its count in the status bar and the
    // Export dock while it runs, a determinate bar while calls are verified, no bar once
    // it ended, and a notification of its end (the window, never shown, is not active).
    auto *statusText = window.findChild<ElidedLabel *>(QStringLiteral("statusExportText"));
    auto *statusBarProgress = window.findChild<QProgressBar *>(QStringLiteral("statusExportProgress"));
    QObject *notifier = window.findChild<QObject *>(QStringLiteral("exportNotifier"));
    QVERIFY(statusText && statusBarProgress && notifier);
    QVERIFY(!statusBarProgress->isVisibleTo(&window));
    QVERIFY(!window.exportPanel()->progressBar()->isVisibleTo(window.exportPanel()));
    QSignalSpy notified(notifier, SIGNAL(notified(QString,QString)));
    QStringList verifyingTexts;
    bool determinate = true;
    connect(exporter->service(), &ExportService::progress, &window, [&](const QString &stage) {
        if (stage != QLatin1String("verify"))
            return;
        verifyingTexts << statusText->fullText();
        determinate = determinate && statusBarProgress->isVisibleTo(&window) && statusBarProgress->maximum() > 0
                      && window.exportPanel()->progressBar()->maximum() > 0;
    });

    QSignalSpy done(exporter->service(), &ExportService::finished);
    cpu->trigger();
    QCOMPARE(exporter->state(), ExportController::WorkerState::Exporting);
    QVERIFY(!cpu->isEnabled()); // one export at a time
    QVERIFY(window.exportPanel()->cancelButton()->isEnabled());
    QVERIFY(statusBarProgress->isVisibleTo(&window));
    QCOMPARE(statusText->fullText(), QStringLiteral("exporting")); // the pipeline asked the worker at once
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, kExportTimeout);
    QVERIFY(!verifyingTexts.isEmpty());
    QVERIFY2(verifyingTexts.last().contains(QRegularExpression(QStringLiteral("verifying call \\d+ \\((\\d+) of \\1\\)$"))),
             qPrintable(verifyingTexts.join(QLatin1Char('\n'))));
    QVERIFY(determinate);
    QVERIFY(!statusBarProgress->isVisibleTo(&window));
    QVERIFY(!window.exportPanel()->progressBar()->isVisibleTo(window.exportPanel())); // no "100 %" or "0 %" when idle
    QTRY_COMPARE(notified.count(), 1);
    QCOMPARE(notified.first().at(0).toString(), QStringLiteral("dimscope: export finished"));
    QCOMPARE(notified.first().at(1).toString(), window.document()->exportResults()->summary());
    const ExportResult result = window.document()->exportResults()->lastResult();
    QVERIFY2(result.ok, qPrintable(result.failure.toText() + window.exportPanel()->logView()->toPlainText().right(3000)));
    QVERIFY(QFileInfo(output).isFile());
    QCOMPARE(exporter->state(), ExportController::WorkerState::Idle);
    QVERIFY(cpu->isEnabled());
    QVERIFY(!window.exportPanel()->cancelButton()->isEnabled());
    QVERIFY(!window.exportPanel()->logView()->toPlainText().isEmpty());

    // The verification table: every captured call, each accepted.
    const VerificationModel *verification = window.exportResultView()->verificationModel();
    QCOMPARE(verification->rowCount(), window.document()->capture().calls.size());
    QCOMPARE(verification->acceptedCount(), verification->rowCount());
    for (const QString &status : column(verification, VerificationModel::StatusColumn))
        QCOMPARE(status, QStringLiteral("accepted"));
    QVERIFY(!window.exportResultView()->showsFailure());

    // The program read back: symbols mapped back to the demo's Dim names.
    const Pt2InputsModel *inputs = window.exportResultView()->programView()->inputsModel();
    QVERIFY(inputs->rowCount() > 0);
    const QString named = column(inputs, Pt2InputsModel::DimsColumn).join(QLatin1Char('\n'));
    const QString symbolic = column(inputs, Pt2InputsModel::SymbolsColumn).join(QLatin1Char('\n'));
    qInfo("demo program inputs:\n%s", qPrintable(named));
    QVERIFY2(named.contains(QLatin1String("past_len")), qPrintable(named));
    QVERIFY2(named.contains(QLatin1String("batch")), qPrintable(named));
    QVERIFY2(symbolic.contains(QRegularExpression(QStringLiteral("\\bs\\d+\\b"))), qPrintable(symbolic));
    QCOMPARE(inputs->flaggedCount(), 0);
    // The program and its verification fill the main area, beside the inputs.
    QCOMPARE(window.documentTabs()->currentIndex(), int(MainWindow::ProgramTab));
    QVERIFY(window.documentTabs()->isTabVisible(MainWindow::InputsTab));
    shot(&window, QStringLiteral("demo-export.png"));
    QVERIFY(window.exportResultView()->programView()->rangesView()->topLevelItemCount() > 0);

    // The worker reported its environment: Preferences text, status bar, CUDA reason.
    QVERIFY(exporter->torchVersion().startsWith(QLatin1Char('2')));
    QVERIFY(exporter->environmentDescription().contains(QStringLiteral("torch ") + exporter->torchVersion()));
    auto *statusWorker = window.findChild<QLabel *>(QStringLiteral("statusWorker"));
    QVERIFY(statusWorker);
    QVERIFY2(statusWorker->text().contains(QLatin1String("idle")), qPrintable(statusWorker->text()));
    QVERIFY(statusWorker->text().contains(exporter->torchVersion()));
    if (!exporter->cudaAvailable()) {
        QVERIFY(!cuda->isEnabled());
        QVERIFY2(cuda->toolTip().contains(QLatin1String("CUDA")), qPrintable(cuda->toolTip()));
    } else {
        QVERIFY(cuda->isEnabled());
    }

    // The .pt2 opens as a document of its own, without a capture (read off the GUI
    // thread): it replaces the project, whose tree goes.
    QSignalSpy opened(window.projectController()->opener(), &DocumentOpener::opened);
    QSignalSpy openFailed(window.projectController()->opener(), &DocumentOpener::failed);
    QVERIFY(window.openFile(output));
    QTRY_VERIFY_WITH_TIMEOUT(!opened.isEmpty() || !openFailed.isEmpty(), 30000);
    QVERIFY2(openFailed.isEmpty(), qPrintable(openFailed.value(0).value(1).toString()));
    QCOMPARE(opened.first().at(0).toString(), output);
    QVERIFY(!window.document()->hasCapture());
    QVERIFY(!window.documentTabs()->isTabVisible(MainWindow::InputsTab));
    QCOMPARE(window.documentTabs()->currentIndex(), int(MainWindow::ProgramTab));
    QCOMPARE(inputs->rowCount(), window.document()->exportResults()->program()->inputs.size());
    // In the Dim names dimscope's export recorded in the archive (issue 28 problem 10),
    // not torch's s23 × s53.
    const QString dims = column(inputs, Pt2InputsModel::DimsColumn).join(QLatin1Char(' '));
    QVERIFY2(dims.contains(QLatin1String("past_len")) && dims.contains(QLatin1String("batch")), qPrintable(dims));
    QVERIFY2(!dims.contains(QRegularExpression(QStringLiteral("\\bs\\d+\\b"))), qPrintable(dims));
    QCOMPARE(verification->rowCount(), 0);
}

// Issue 23, item 5: the GUI cannot run on the GPU machine, whose checks send the
// requests `dimscope-cli export --device cuda` sent (scripts/device-plan,
// scripts/device-export). So the GUI's Export on CUDA must send the CLI's request for
// the same capture, model, constraints and options: the worker's stdin of each is
// logged and their first `export` requests compared (output path aside). Without CUDA
// the worker refuses at once, and that refusal is what the user sees.
void TestExportUi::cudaExportSendsTheClisRequest()
{
    const QString guiLog = m_dir.filePath(QStringLiteral("gui-requests.jsonl"));
    const QString cliLog = m_dir.filePath(QStringLiteral("cli-requests.jsonl"));
    QFile::remove(guiLog);
    QFile::remove(cliLog);
    const QString guiPython = requestLoggingPython(m_dir.filePath(QStringLiteral("gui-python")), guiLog);
    const QString cliPython = requestLoggingPython(m_dir.filePath(QStringLiteral("cli-python")), cliLog);
    QVERIFY(!guiPython.isEmpty() && !cliPython.isEmpty());
    QSettings().setValue(settings::PythonInterpreter, guiPython); // Preferences' interpreter

    // The GUI: the demo project, Export on CUDA (the controller's slot: the menu item
    // is greyed where the worker reports no CUDA).
    MainWindow window;
    ExportController *exporter = window.exportController();
    QVERIFY(openProject(window, demoProject()));
    const ProjectDocument *doc = window.document();
    exporter->setOutputPath(m_dir.filePath(QStringLiteral("demo-cuda-gui.pt2")));
    QSignalSpy done(exporter->service(), &ExportService::finished);
    QVERIFY2(exporter->startExport(QStringLiteral("cuda")), qPrintable(exporter->lastError()));
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, kExportTimeout);
    const ExportResult result = doc->exportResults()->lastResult();
    if (!exporter->cudaAvailable()) {
        QVERIFY(!result.ok);
        QCOMPARE(result.failure.kind, QStringLiteral("cuda_unavailable"));
    }

    // The CLI with the project's model, capture, constraints (written by the project's
    // own writer) and export options.
    const ExportOptions options = doc->exportOptions();
    const QString constraints = m_dir.filePath(QStringLiteral("demo-cuda.constraints.json"));
    QString error;
    QVERIFY2(ConstraintSetJson::writeFile(constraints, doc->constraints(), &error), qPrintable(error));
    QStringList args{QStringLiteral("export"), QStringLiteral("--model"), doc->modelRef(), QStringLiteral("--capture"),
                     doc->capturePath(), QStringLiteral("--constraints"), constraints, QStringLiteral("--device"),
                     QStringLiteral("cuda"), QStringLiteral("-o"), m_dir.filePath(QStringLiteral("demo-cuda-cli.pt2"))};
    if (options.fixLoop)
        args << QStringLiteral("--fix-loop");
    if (options.strict)
        args << QStringLiteral("--strict");
    if (options.exampleCall >= 0)
        args << QStringLiteral("--call") << QString::number(options.exampleCall);
    QProcess cli;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("PYTHONHOME"));
    env.insert(QStringLiteral("DIMSCOPE_PYTHON"), cliPython);
    cli.setProcessEnvironment(env);
    cli.setProcessChannelMode(QProcess::MergedChannels);
    cli.setWorkingDirectory(m_dir.path());
    cli.start(QStringLiteral(DIMSCOPE_CLI), args);
    QVERIFY(cli.waitForFinished(kExportTimeout));
    const QByteArray printed = cli.readAll();
    if (!exporter->cudaAvailable()) {
        QVERIFY2(cli.exitCode() == 1 && printed.contains("cuda_unavailable"), printed.right(3000).constData());
    }

    const QJsonObject gui = firstExportParams(guiLog);
    const QJsonObject sent = firstExportParams(cliLog);
    QVERIFY2(!gui.isEmpty(), readText(guiLog).right(3000).constData());
    QVERIFY2(!sent.isEmpty(), readText(cliLog).right(3000).constData());
    QCOMPARE(gui.value(QLatin1String("device")).toString(), QStringLiteral("cuda"));
    QVERIFY2(gui == sent, qPrintable(QStringLiteral("GUI | CLI\n") + differences(gui, sent)));
}

// Issue 13, problem 2: exported with the prefill (past length 0) as the example call
// and without the fix loop, torch asks for `past_len = 0`; the failure page proposes a
// call with no Dim at 0 or 1, and using it exports every call without any fix.
void TestExportUi::prefillExampleProposesABetterCall()
{
    MainWindow window;
    ExportController *exporter = window.exportController();
    QVERIFY(openProject(window, demoProject()));
    ProjectDocument *doc = window.document();
    ExportOptions options = doc->exportOptions();
    options.exampleCall = 0;
    options.fixLoop = false;
    doc->setExportOptions(options);
    exporter->setOutputPath(m_dir.filePath(QStringLiteral("prefill.pt2")));
    QSignalSpy done(exporter->service(), &ExportService::finished);
    QVERIFY(exporter->startExport(QStringLiteral("cpu")));
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, kExportTimeout);
    ExportResultView *result = window.exportResultView();
    QVERIFY(result->showsFailure());
    QVERIFY(window.document()->exportResults()->lastResult().failure.fixes.contains(QStringLiteral("past_len = 0")));
    QLabel *advice = result->exampleCallAdviceLabel();
    QVERIFY(advice->isVisibleTo(&window));
    QVERIFY2(advice->text().startsWith(QStringLiteral("The export traced call 0, where past_len = 0")), qPrintable(advice->text()));
    const ExportHints hints = ExportHints::compute(doc->table(), doc->constraints());
    const int proposed = hints.automaticCall();
    QVERIFY(hints.calls().at(proposed).zeroOrOne.isEmpty());
    QVERIFY2(advice->text().contains(QStringLiteral("Call %1 has no Dim at 0 or 1").arg(proposed)), qPrintable(advice->text()));
    QPushButton *use = result->useExampleCallButton();
    QCOMPARE(use->text(), QStringLiteral("Use Call %1 and Re-export").arg(proposed));
    use->click();
    QCOMPARE(doc->exportOptions().exampleCall, proposed);
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 2, kExportTimeout);
    const ExportResult second = window.document()->exportResults()->lastResult();
    QVERIFY2(second.ok, qPrintable(second.failure.toText()));
    QCOMPARE(second.exampleCall, proposed);
    QCOMPARE(window.exportResultView()->verificationModel()->acceptedCount(), doc->capture().calls.size());
    QVERIFY(!result->exampleCallAdviceLabel()->isVisibleTo(&window));
}

// Models whose own code specializes a dim (in a helper the forward calls), caps one,
// and whose guard is inside torch (the line shown is the user's call).
static const char kWhyModels[] = "import torch\n"
                                 "import torch.nn.functional as F\n"
                                 "\n"
                                 "def double_if_four(h):\n"
                                 "    if h.shape[1] == 4:\n"
                                 "        return h * 2\n"
                                 "    return h\n"
                                 "\n"
                                 "class Specializes(torch.nn.Module):\n"
                                 "    def forward(self, x, y):\n"
                                 "        h = double_if_four(x + 1)\n"
                                 "        if y.shape[0] > 16:\n"
                                 "            raise ValueError('y is too long')\n"
                                 "        return h.sum(-1) + y.sum()\n"
                                 "\n"
                                 "class InLibrary(torch.nn.Module):\n"
                                 "    def __init__(self):\n"
                                 "        super().__init__()\n"
                                 "        self.weight = torch.nn.Parameter(torch.randn(3, 8, generator=torch.Generator().manual_seed(0)))\n"
                                 "    def forward(self, x):\n"
                                 "        return F.linear(x, self.weight)\n";

void TestExportUi::whyPanelNamesTheModelsLines_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("calls");       // Python: the forward calls to record
    QTest::addColumn<QStringList>("leaves");  // leaf=dim,dim for the constraints
    QTest::addColumn<QStringList>("expected"); // "KIND|EXPRESSION|LINE|CODE"
    QTest::newRow("specialize and cap")
        << QStringLiteral("Specializes")
        << QStringLiteral("[(torch.randn(3, 4), torch.randn(8)), (torch.randn(5, 6), torch.randn(10)),"
                          " (torch.randn(2, 7), torch.randn(12))]")
        << QStringList{QStringLiteral("x=batch,seq_len"), QStringLiteral("y=n")}
        << QStringList{QStringLiteral("specialized|seq_len == 4|5|if h.shape[1] == 4:"),
                       QStringLiteral("range narrowed|n <= 16|12|if y.shape[0] > 16:")};
    QTest::newRow("guard in a library call")
        << QStringLiteral("InLibrary") << QStringLiteral("[(torch.randn(3, 8),), (torch.randn(5, 8),)]")
        << QStringList{QStringLiteral("x=batch,k")}
        << QStringList{QStringLiteral("specialized|k == 8|21|return F.linear(x, self.weight)")};
}

// The Why panel after a failing export from the GUI: each decision at the model's
// FILE:LINE with its code (the CLI's counterpart is tests/python/test_cli_explain.py).
void TestExportUi::whyPanelNamesTheModelsLines()
{
    QFETCH(QString, model);
    QFETCH(QString, calls);
    QFETCH(QStringList, leaves);
    QFETCH(QStringList, expected);
    const QString models = m_dir.filePath(QStringLiteral("why_models.py"));
    QFile file(models);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(kWhyModels);
    file.close();
    const QString capture = m_dir.filePath(model + QStringLiteral(".safetensors"));
    QProcess python;
    python.setProcessChannelMode(QProcess::MergedChannels);
    python.start(QStringLiteral(DIMSCOPE_SOURCE_DIR "/scripts/torch-python"),
                 {QStringLiteral("-c"),
                  QStringLiteral("import sys, torch\nsys.path.insert(0, sys.argv[1])\nimport why_models\n"
                                 "from dimscope.capture import InputRecorder\n"
                                 "m = why_models.%1()\ncalls = %2\nrec = InputRecorder(store_n_calls=len(calls))\n"
                                 "with rec(m), torch.no_grad():\n    for c in calls:\n        m(*c)\nrec.save(sys.argv[2])\n")
                      .arg(model, calls),
                  m_dir.path(), capture});
    QVERIFY(python.waitForFinished(180000));
    QVERIFY2(python.exitCode() == 0, python.readAll().constData());

    ProjectFile project;
    project.capturePath = capture;
    project.modelRef = models + QLatin1Char(':') + model;
    ConstraintSet set;
    for (const QString &leaf : leaves) {
        QVector<DimAssignment> dims;
        for (const QString &name : leaf.section(QLatin1Char('='), 1).split(QLatin1Char(','))) {
            if (!set.dim(name))
                QCOMPARE(set.addRootDim(name), QString());
            dims << DimAssignment::named(name);
        }
        QCOMPARE(set.setLeaf(leaf.section(QLatin1Char('='), 0, 0), dims), QString());
    }
    project.constraints = set;
    project.exportOptions.fixLoop = false; // the failure as torch gives it
    const QString projectPath = m_dir.filePath(model + QStringLiteral(".dimscope"));
    QString error;
    QVERIFY2(ProjectFile::write(projectPath, project, &error), qPrintable(error));

    MainWindow window;
    ExportController *exporter = window.exportController();
    QVERIFY(openProject(window, projectPath));
    ModelConsent::approve(window.document()->projectPath(), window.document()->modelRef());
    exporter->setOutputPath(m_dir.filePath(model + QStringLiteral(".pt2")));
    QSignalSpy done(exporter->service(), &ExportService::finished);
    action(&window, "actionExportCpu")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, kExportTimeout);
    QCOMPARE(window.document()->exportResults()->lastResult().failure.kind, QStringLiteral("constraint_violation"));

    const ExplanationsModel *why = window.explanationsPanel()->model();
    QStringList rows;
    for (int r = 0; r < why->rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < ExplanationsModel::ColumnCount; ++c)
            cells << why->index(r, c).data().toString();
        rows << cells.join(QLatin1Char('|'));
    }
    for (const QString &e : expected) {
        const QStringList p = e.split(QLatin1Char('|'));
        const QString row = QStringList{p[0], p[1], QStringLiteral("why_models.py:") + p[2], p[3]}.join(QLatin1Char('|'));
        QVERIFY2(rows.contains(row), qPrintable(row + QStringLiteral(" not in:\n") + rows.join(QLatin1Char('\n'))));
    }
    // No decision is placed in torch's own files.
    for (const ShapeExplanation &e : window.document()->exportResults()->explanations())
        QVERIFY2(!e.location.file.contains(QLatin1String("/torch/")), qPrintable(e.toText()));
}

void TestExportUi::tutorialFailsApplyFixesThenReexport()
{
    MainWindow window;
    ExportController *exporter = window.exportController();
    QAbstractItemModelTester verificationTester(window.exportResultView()->verificationModel(),
                                                QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester inputsTester(window.exportResultView()->programView()->inputsModel(),
                                          QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(openProject(window, m_dir.filePath(QStringLiteral("tutorial.dimscope"))));
    ProjectDocument *doc = window.document();
    QVERIFY(doc->modelRef().endsWith(QLatin1String("tutorial.py:Tutorial")));
    ModelConsent::approve(doc->projectPath(), doc->modelRef()); // asked and answered in its own test
    exporter->setOutputPath(m_dir.filePath(QStringLiteral("tutorial.pt2")));

    // Cancel while the worker starts: a clear outcome, and the next export starts a
    // fresh worker.
    QSignalSpy done(exporter->service(), &ExportService::finished);
    action(&window, "actionExportCpu")->trigger();
    QVERIFY(window.exportPanel()->cancelButton()->isEnabled());
    window.exportPanel()->cancelButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 30000);
    QCOMPARE(window.document()->exportResults()->lastResult().failure.kind, QStringLiteral("cancelled"));
    QCOMPARE(exporter->state(), ExportController::WorkerState::NotStarted);
    QVERIFY2(window.exportPanel()->stageLabel()->text().contains(QLatin1String("cancelled"), Qt::CaseInsensitive),
             qPrintable(window.exportPanel()->stageLabel()->text()));
    QVERIFY(!exporter->client()->isWorkerRunning());
    QVERIFY(!window.banner()->isVisible() || !window.banner()->text().contains(QLatin1String("did not start")));
    done.clear();

    action(&window, "actionExportCpu")->trigger();
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, kExportTimeout);
    ExportResult result = window.document()->exportResults()->lastResult();
    QVERIFY(!result.ok);
    QCOMPARE(result.failure.kind, QStringLiteral("constraint_violation"));
    ExportResultView *view = window.exportResultView();
    QVERIFY(view->showsFailure());
    QVERIFY(view->headline()->text().contains(QLatin1String("constraint_violation")));
    // Each violation with the Dims and the leaf dims it names.
    QTreeWidget *violations = view->violationsView();
    // torch repeats some lines (d1 once per use); each is shown once.
    QVERIFY(violations->topLevelItemCount() >= 2);
    QSet<QString> texts;
    for (int i = 0; i < violations->topLevelItemCount(); ++i)
        texts.insert(violations->topLevelItem(i)->text(ExportResultView::ViolationColumn));
    QCOMPARE(texts.size(), violations->topLevelItemCount());
    bool sawEqual = false;
    for (int i = 0; i < violations->topLevelItemCount(); ++i) {
        QTreeWidgetItem *item = violations->topLevelItem(i);
        if (item->data(0, Qt::UserRole).toString() == QLatin1String("equal")) {
            sawEqual = true;
            QCOMPARE(item->text(ExportResultView::DimsColumn), QStringLiteral("dx, dy"));
            // The capture's key paths with the Dim names, not torch's L['x'].size()[0].
            const QString leafDims = item->text(ExportResultView::LeafDimsColumn);
            QVERIFY2(leafDims.contains(QLatin1String("x dim 0 (dx)")) && leafDims.contains(QLatin1String("y dim 0 (dy)")),
                     qPrintable(leafDims));
            QVERIFY2(!item->text(ExportResultView::ViolationColumn).contains(QLatin1String("L[")),
                     qPrintable(item->text(ExportResultView::ViolationColumn)));
        }
    }
    QVERIFY(sawEqual);
    QStringList fixes;
    for (int i = 0; i < view->fixesView()->count(); ++i)
        fixes << view->fixesView()->item(i)->data(Qt::UserRole).toString();
    QCOMPARE(fixes, (QStringList{QStringLiteral("d1 = 4"), QStringLiteral("dy = dx")}));
    // Before applying, each fix says what caused it; neither breaks a captured call.
    const QString d1Fix = view->fixesView()->item(0)->text();
    QVERIFY2(d1Fix.startsWith(QLatin1String("d1 = 4\n    because tutorial.py:5: specialized: d1 == 4")), qPrintable(d1Fix));
    QVERIFY2(view->fixesView()->item(1)->text().contains(QLatin1String("because tutorial.py:4: equality: dx == dy")),
             qPrintable(view->fixesView()->item(1)->text()));
    QVERIFY(!d1Fix.contains(QLatin1String("breaks")));
    QVERIFY(view->applyFixesButton()->isEnabled());
    shot(&window, QStringLiteral("tutorial-failure.png"));

    // Why: torch's decision on d1 with the tutorial's line (tutorial.py:5), in the Why
    // panel and on the Dim's row.
    ExplanationsPanel *why = window.explanationsPanel();
    QVERIFY(window.findChild<QDockWidget *>(QStringLiteral("explanationsDock"))->isVisibleTo(&window));
    bool sawD1 = false;
    for (int row = 0; row < why->model()->rowCount(); ++row) {
        const QModelIndex index = why->model()->index(row, ExplanationsModel::ExpressionColumn);
        // (torch may also log it at the inputs, without a line)
        if (index.data().toString() != QLatin1String("d1 == 4")
            || index.siblingAtColumn(ExplanationsModel::LocationColumn).data().toString() == QLatin1String("at the inputs"))
            continue;
        sawD1 = true;
        QCOMPARE(index.siblingAtColumn(ExplanationsModel::KindColumn).data().toString(), QStringLiteral("specialized"));
        QCOMPARE(index.siblingAtColumn(ExplanationsModel::LocationColumn).data().toString(), QStringLiteral("tutorial.py:5"));
        QCOMPARE(index.siblingAtColumn(ExplanationsModel::CodeColumn).data().toString(),
                 QStringLiteral("return w + torch.ones(4)"));
        why->view()->setCurrentIndex(index.siblingAtColumn(0));
        QCOMPARE(QFileInfo(why->shownFile()).fileName(), QStringLiteral("tutorial.py"));
        QVERIFY(why->sourceView()->toPlainText().contains(QLatin1String("> 5          return w + torch.ones(4)")));
    }
    QVERIFY2(sawD1, qPrintable(doc->exportResults()->explanations().isEmpty() ? QStringLiteral("no explanations")
                                                               : doc->exportResults()->explanations().first().toText()));
    const int d1Row = [&] {
        for (int r = 0; r < window.dimsPanel()->model()->rowCount(); ++r)
            if (window.dimsPanel()->model()->index(r, DimsModel::NameColumn).data().toString() == QLatin1String("d1"))
                return r;
        return -1;
    }();
    QVERIFY(d1Row >= 0);
    QVERIFY(window.dimsPanel()->model()->index(d1Row, DimsModel::NameColumn).data(Qt::ToolTipRole).toString()
                .contains(QLatin1String("tutorial.py:5: specialized: d1 == 4")));
    shot(&window, QStringLiteral("why-panel.png"), "explanationsDock");

    // Apply fixes: one undo step; undo restores the exact previous set.
    const ConstraintSet before = doc->constraints();
    const int steps = doc->undoStack()->count();
    view->applyFixesButton()->click();
    const ConstraintSet after = doc->constraints();
    QVERIFY(after != before);
    QCOMPARE(doc->undoStack()->count(), steps + 1);
    QVERIFY(!after.dim(QStringLiteral("dy")));
    QVERIFY(!after.dim(QStringLiteral("d1")));
    QCOMPARE(after.assignment(QStringLiteral("y"), 0), DimAssignment::named(QStringLiteral("dx")));
    QVERIFY(after.assignment(QStringLiteral("x"), 1).isStatic());
    QVERIFY(view->fixOutcomeLabel()->isVisibleTo(view));
    QVERIFY(!view->fixOutcomeLabel()->text().contains(QLatin1String("Could not apply")));
    doc->undoStack()->undo();
    QVERIFY(doc->constraints() == before);
    doc->undoStack()->redo();
    QVERIFY(doc->constraints() == after);

    // Re-export with the fixed constraints: success, every call accepted, the
    // symbol of x[0]/y[0] named dx.
    view->reexportButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 2, kExportTimeout);
    result = window.document()->exportResults()->lastResult();
    QVERIFY2(result.ok, qPrintable(result.failure.toText()));
    QVERIFY(!view->showsFailure());
    QCOMPARE(view->verificationModel()->acceptedCount(), 3);
    const Pt2InputsModel *inputs = view->programView()->inputsModel();
    QCOMPARE(column(inputs, Pt2InputsModel::DimsColumn), (QStringList{QStringLiteral("dx × 4"), QStringLiteral("dx × 4")}));
}

// A real transformers model as a new user would export it: open the generate()
// capture, name the model, Export on CPU, no hand edits. The pipeline exports a program
// for the decode calls and one for the prefill calls, and every call replays through
// one of them; the document's constraints are not touched.
void TestExportUi::realModelExportsEveryCallThroughPhases()
{
    if (qEnvironmentVariable("DIMSCOPE_RUNTIME") == QLatin1String("trixie"))
        QSKIP("the trixie runtime has no transformers; the real-model GUI export runs on sid");
    const QString capture = m_dir.filePath(QStringLiteral("llama.safetensors"));
    // A second recording of the model (batch 1, batch 4 padded, a longer prompt, a
    // 1-token prompt, a chat turn): Verify With Another Capture… replays it.
    const QString heldOutCapture = m_dir.filePath(QStringLiteral("llama-held-out.safetensors"));
    const QString models = QStringLiteral(DIMSCOPE_SOURCE_DIR "/tests/realmodels");
    QProcess python;
    python.setProcessChannelMode(QProcess::MergedChannels);
    python.setWorkingDirectory(models);
    python.start(QStringLiteral(DIMSCOPE_SOURCE_DIR "/scripts/torch-python"),
                 {QStringLiteral("tinymodels.py"), QStringLiteral("llama"), capture, heldOutCapture});
    QVERIFY(python.waitForFinished(300000));
    QVERIFY2(python.exitCode() == 0, python.readAll().right(3000).constData());

    MainWindow window;
    ExportController *exporter = window.exportController();
    ExportResultView *view = window.exportResultView();
    QAbstractItemModelTester programsTester(view->programsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester verificationTester(view->verificationModel(),
                                                QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy shown(&window, &MainWindow::captureShown);
    QVERIFY(window.openFile(capture));
    QVERIFY(shown.wait(120000));
    ProjectDocument *doc = window.document();
    QVERIFY(doc->exportOptions().fixLoop); // the default
    doc->setModelRef(models + QStringLiteral("/tinymodels.py:llama"));
    const ConstraintSet before = doc->constraints();
    const int steps = doc->undoStack()->count();
    const QString output = m_dir.filePath(QStringLiteral("llama.pt2"));
    exporter->setOutputPath(output);

    // Export > Verify With Another Capture… (issue 24 item 4): the held-out capture is
    // the project's from now on, and this export replays its calls.
    QSignalSpy done(exporter->service(), &ExportService::finished);
    QAbstractItemModelTester heldOutTester(view->heldOutView()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester rangesTester(view->servedRangesModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(test::answerFileDialog(action(&window, "actionVerifyWith"), heldOutCapture) > 0);
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, kExportTimeout);
    QCOMPARE(doc->exportOptions().heldOutCapture, heldOutCapture);
    QVERIFY(action(&window, "actionStopVerifyingWith")->isEnabled());
    const PhasedExportOutcome &outcome = window.document()->exportResults()->outcome();
    const QString log = window.exportPanel()->logView()->toPlainText().right(4000);
    QVERIFY2(outcome.servesEveryCall(), qPrintable(outcome.summary() + QLatin1Char('\n') + log));
    // Every held-out call served by one of the programs, in its own tab, as the
    // real-model suite's CLI check finds for Llama.
    QVERIFY2(outcome.heldOut.replayed(), qPrintable(outcome.heldOut.skipped + QLatin1Char('\n') + log));
    const HeldOutModel *heldOut = view->heldOutView()->model();
    QVERIFY(heldOut->rowCount() >= 8);
    for (int r = 0; r < heldOut->rowCount(); ++r)
        QVERIFY2(heldOut->index(r, 0).data(Qt::UserRole).toBool(),
                 qPrintable(heldOut->index(r, HeldOutModel::DetailColumn).data().toString()));
    QVERIFY(view->heldOutView()->summaryLabel()->text().contains(
        QStringLiteral("%1 of %1 calls served").arg(heldOut->rowCount())));
    QVERIFY(view->callTabs()->isTabVisible(view->callTabs()->indexOf(view->heldOutView())));
    // Served ranges (issue 24 item 3): the fix loop probed every program's declared
    // ranges; one row per probed Dim of each program, and a Dim not served whole names
    // what rejected it.
    const ServedRangesModel *ranges = view->servedRangesModel();
    QVERIFY(view->callTabs()->isTabVisible(view->callTabs()->indexOf(view->servedRangesView())));
    int probedDims = 0;
    for (const ExportedProgram &p : outcome.programs) {
        QVERIFY2(p.result.probes.present, qPrintable(p.result.output));
        probedDims += p.result.probes.dims.size();
    }
    QVERIFY(probedDims > 0);
    QCOMPARE(ranges->rowCount(), probedDims);
    for (int r = 0; r < ranges->rowCount(); ++r) {
        if (!ranges->index(r, 0).data(Qt::UserRole).toBool())
            QVERIFY(!ranges->index(r, ServedRangesModel::RejectedColumn).data().toString().isEmpty());
    }
    QVERIFY2(outcome.programs.size() >= 2, qPrintable(outcome.summary())); // prefill and decode differ under SDPA
    QCOMPARE(outcome.servedCalls().size(), doc->capture().calls.size());
    QVERIFY(doc->constraints() == before); // fixes go to a copy
    QCOMPARE(doc->undoStack()->count(), steps);

    // The programs, each with its calls; selecting one shows the replay of its calls.
    QVERIFY(view->programsView()->isVisibleTo(view));
    QCOMPARE(view->programsModel()->rowCount(), outcome.programs.size());
    QVERIFY(view->headline()->text().contains(QLatin1String("every captured call")));
    QVERIFY(window.exportPanel()->stageLabel()->text().contains(QLatin1String("program")));
    for (int row = 0; row < outcome.programs.size(); ++row) {
        const ExportedProgram &p = outcome.programs.at(row);
        QVERIFY2(QFileInfo(p.result.output).isFile(), qPrintable(p.result.output));
        view->programsView()->selectRow(row);
        QCOMPARE(view->selectedProgram(), row);
        QVERIFY(view->headline()->text().contains(QFileInfo(p.result.output).fileName()));
        QStringList accepted;
        const VerificationModel *verification = view->verificationModel();
        for (int r = 0; r < verification->rowCount(); ++r) {
            if (verification->rows().at(r).ok())
                accepted << QString::number(verification->rows().at(r).call);
        }
        QStringList calls;
        for (int c : p.calls)
            calls << QString::number(c);
        if (p.synthesized.isEmpty()) {
            QCOMPARE(accepted, calls);
        } else {
            // The continuation program (issue 27 item 2) serves no captured call; its rows
            // are the synthesized calls it was verified on, every one accepted.
            QVERIFY(calls.isEmpty());
            QVERIFY(!accepted.isEmpty());
            QCOMPARE(accepted.size(), verification->rowCount());
        }
        QVERIFY(view->programView()->inputsModel()->rowCount() > 0);
    }
    // The cache length stays symbolic in the program that serves the decode calls.
    bool symbolicPast = false;
    for (int row = 0; row < outcome.programs.size(); ++row) {
        view->programsView()->selectRow(row);
        const Pt2InputsModel *inputs = view->programView()->inputsModel();
        for (int r = 0; r < inputs->rowCount(); ++r) {
            const QString name = inputs->index(r, 0).data().toString();
            const QString dims = inputs->index(r, Pt2InputsModel::SymbolsColumn).data().toString();
            if (name.contains(QLatin1String("key_cache")) && dims.contains(QRegularExpression(QStringLiteral("\\bs\\d+"))))
                symbolicPast = true;
        }
    }
    QVERIFY(symbolicPast);
    shot(&window, QStringLiteral("llama-phases.png"));
}

// Verify With Another Capture… checks the second capture before anything runs: one of
// another model (the LLaVA fixture beside the demo project) is refused with the leaf
// that does not fit, and the project keeps no held-out capture; one that was saved with
// the project and is gone since stops the export with that reason.
void TestExportUi::verifyWithRefusesACaptureThatDoesNotFit()
{
    MainWindow window;
    ExportController *exporter = window.exportController();
    QVERIFY(openProject(window, demoProject()));
    QSignalSpy refused(exporter, &ExportController::exportRefused);
    const QString llava = QStringLiteral(DIMSCOPE_SOURCE_DIR "/tests/fixtures/llava/llava-capture.safetensors");
    QVERIFY(!exporter->exportVerifyingWith(llava));
    QVERIFY2(exporter->lastError().contains(QLatin1String("Not verified with"))
                 && exporter->lastError().contains(QLatin1String("which no call of")),
             qPrintable(exporter->lastError()));
    QVERIFY(!exporter->isExporting());
    QVERIFY(window.document()->exportOptions().heldOutCapture.isEmpty());
    QVERIFY(!action(&window, "actionStopVerifyingWith")->isEnabled());

    ExportOptions options = window.document()->exportOptions();
    options.heldOutCapture = m_dir.filePath(QStringLiteral("gone.safetensors"));
    window.document()->setExportOptions(options);
    QVERIFY(action(&window, "actionStopVerifyingWith")->isEnabled());
    exporter->setOutputPath(m_dir.filePath(QStringLiteral("demo-held-out.pt2")));
    QVERIFY(!exporter->startExport(QStringLiteral("cpu"), ExportController::Consent::Given));
    QVERIFY2(exporter->lastError().contains(QLatin1String("held-out capture cannot be replayed"))
                 && exporter->lastError().contains(QLatin1String("gone.safetensors")),
             qPrintable(exporter->lastError()));
    QVERIFY(!exporter->isExporting());
    action(&window, "actionStopVerifyingWith")->trigger();
    QVERIFY(window.document()->exportOptions().heldOutCapture.isEmpty());
    QVERIFY(!action(&window, "actionStopVerifyingWith")->isEnabled());
}

// A project names Python code that Export runs: the first export of a project opened
// from a given place asks, showing the reference; "Cancel" runs nothing, "Run the
// Model" exports and is remembered. A capture opened afterwards does not inherit the
// project's model.
void TestExportUi::projectModelRunsOnlyAfterTheUserSaysSo()
{
    const QString project = m_dir.filePath(QStringLiteral("tutorial.dimscope"));
    // The answering timers belong to the block that owns the strings they write: a timer
    // armed for a question that never comes ("the same project again") must not answer
    // a later test's question into a string that is gone.
    std::unique_ptr<QObject> answerers = std::make_unique<QObject>();
    auto answer = [&answerers](const char *button, QString *shownText) {
        auto *timer = new QTimer(answerers.get());
        QObject::connect(timer, &QTimer::timeout, timer, [timer, button, shownText] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            if (!box || box->objectName() != QLatin1String("modelConsentDialog"))
                return;
            *shownText = box->informativeText();
            if (auto *b = box->findChild<QPushButton *>(QLatin1String(button)))
                b->click();
            else
                box->reject();
            timer->deleteLater();
        });
        timer->start(20);
    };
    {
        MainWindow window;
        ExportController *exporter = window.exportController();
        QVERIFY(openProject(window, project));
        QVERIFY(window.document()->isModelRefFromProject());
        exporter->setOutputPath(m_dir.filePath(QStringLiteral("consent.pt2")));
        QVERIFY(ModelConsent::needsApproval(window.document()->projectPath(), window.document()->modelRef()));

        QString shown;
        answer("", &shown); // no such button: the dialog is rejected (Cancel, Escape)
        QVERIFY(!exporter->startExport(QStringLiteral("cpu")));
        QVERIFY2(shown.contains(QLatin1String("tutorial.py:Tutorial")), qPrintable(shown));
        QVERIFY(!exporter->isExporting());
        QVERIFY(!exporter->client()->isWorkerRunning()); // nothing ran
        QVERIFY(exporter->lastError().contains(QLatin1String("was not run")));

        QSignalSpy done(exporter->service(), &ExportService::finished);
        shown.clear();
        answer("runModelButton", &shown);
        QVERIFY(exporter->startExport(QStringLiteral("cpu")));
        QVERIFY(!shown.isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, kExportTimeout);
        QVERIFY(!ModelConsent::needsApproval(window.document()->projectPath(), window.document()->modelRef()));

        // The same project again: no question.
        QVERIFY(openProject(window, project));
        shown.clear();
        answer("runModelButton", &shown);
        QVERIFY(exporter->startExport(QStringLiteral("cpu")));
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 2, kExportTimeout);
        QVERIFY(shown.isEmpty());

        // A plain capture opened next does not take the project's model along.
        QSignalSpy shownCapture(&window, &MainWindow::captureShown);
        QVERIFY(window.openFile(m_dir.filePath(QStringLiteral("tutorial.safetensors"))));
        QVERIFY(shownCapture.wait(120000));
        QVERIFY(window.document()->modelRef().isEmpty());
        QVERIFY(!window.document()->isModelRefFromProject());
        answerers.reset(); // before `shown` goes
    }
    // The project copied to another place asks again; dimscope's own demo never asks.
    const QString copy = m_dir.filePath(QStringLiteral("copy/tutorial.dimscope"));
    QDir(m_dir.path()).mkdir(QStringLiteral("copy"));
    QVERIFY(QFile::copy(project, copy));
    const QString ref = m_dir.filePath(QStringLiteral("tutorial.py")) + QStringLiteral(":Tutorial");
    QVERIFY(ModelConsent::needsApproval(copy, ref));
    QVERIFY(!ModelConsent::needsApproval(demoProject(), QStringLiteral("dimscope.demo:make_model")));
}

// Issue 26 item 1: "dimscope./../evil_model.py:make" is not dimscope's demo. With the GUI
// started in the folder that holds evil_model.py, one click of Export ran that file
// with no question. It is refused, asked or not (dimscope --export=cpu PROJECT), and
// nothing runs.
void TestExportUi::disguisedDimscopeReferenceNeverRuns()
{
    QTemporaryDir started;
    const QString marker = started.filePath(QStringLiteral("ran"));
    writeText(started.filePath(QStringLiteral("evil_model.py")), markingModel(marker));
    writeText(started.filePath(QStringLiteral("open-me.dimscope")),
              R"({"format": "dimscope.project", "version": 1, "capture": ")"
                  + QFile::encodeName(m_dir.filePath(QStringLiteral("tutorial.safetensors")))
                  + R"(", "model": "dimscope./../evil_model.py:make"})");
    const WorkingDirectory cwd(started.path());
    MainWindow window;
    ExportController *exporter = window.exportController();
    QVERIFY(openProject(window, started.filePath(QStringLiteral("open-me.dimscope"))));
    exporter->setOutputPath(started.filePath(QStringLiteral("out.pt2")));
    QSignalSpy done(exporter->service(), &ExportService::finished);
    ConsentAnswerer no{QString()};
    const bool ran = exporter->startExport(QStringLiteral("cpu"));
    const QString error = exporter->lastError();
    const bool ranWithConsent = !ran && exporter->startExport(QStringLiteral("cpu"), ExportController::Consent::Given);
    if (ran || ranWithConsent)
        QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, kExportTimeout);
    QVERIFY2(!QFile::exists(marker), "evil_model.py ran");
    QVERIFY(!ran && !ranWithConsent);
    QCOMPARE(no.asked, 0); // refused, not offered
    QVERIFY2(error.contains(QLatin1String("names dimscope's own package")) && error.contains(QLatin1String("'/' at character 10")),
             qPrintable(error));
    QVERIFY(!exporter->isExporting());
    QVERIFY(!QFile::exists(started.filePath(QStringLiteral("out.pt2"))));
}

// Issue 26 item 7: the question names the file that would run. A right-to-left
// override in its name ("evil<RLO>yp.py" reads "evilpy.py" backwards) is shown
// escaped, so the name on screen is the name on disk; nothing runs on a no.
void TestExportUi::consentShowsTheModelPathEscaped()
{
    QTemporaryDir projectDir;
    const QString marker = projectDir.filePath(QStringLiteral("ran"));
    const QString name = QStringLiteral("evil") + QChar(0x202e) + QStringLiteral("yp.model.py");
    writeText(projectDir.filePath(name), markingModel(marker));
    ProjectFile project;
    project.capturePath = m_dir.filePath(QStringLiteral("tutorial.safetensors"));
    project.modelRef = projectDir.filePath(name + QStringLiteral(":make"));
    const QString projectPath = projectDir.filePath(QStringLiteral("spoof.dimscope"));
    QString error;
    QVERIFY2(ProjectFile::write(projectPath, project, &error), qPrintable(error));
    MainWindow window;
    ExportController *exporter = window.exportController();
    QVERIFY(openProject(window, projectPath));
    exporter->setOutputPath(projectDir.filePath(QStringLiteral("out.pt2")));
    ConsentAnswerer no{QString()};
    QVERIFY(!exporter->startExport(QStringLiteral("cpu")));
    QCOMPARE(no.asked, 1);
    QVERIFY2(!no.shown.contains(QChar(0x202e)), qPrintable(no.shown));
    QVERIFY2(no.shown.contains(QStringLiteral("evil\\u202eyp.model.py:make")), qPrintable(no.shown));
    QVERIFY(!QFile::exists(marker));
}

// Issue 26 item 3: a project's "tutorial.py:Tutorial" is the file beside the project.
// The GUI is started in another folder with a tutorial.py of its own (which leaves a
// mark): the question shows the project's file by its absolute path and content hash,
// and that file is the one that runs.
void TestExportUi::projectModelBesideItRunsWhereverTheGuiStarted()
{
    QTemporaryDir projectDir, started;
    const QByteArray model = readText(m_dir.filePath(QStringLiteral("tutorial.py")));
    writeText(projectDir.filePath(QStringLiteral("tutorial.py")), model);
    const QString marker = started.filePath(QStringLiteral("ran"));
    writeText(started.filePath(QStringLiteral("tutorial.py")), markingModel(marker));
    // Written as a user writes it: the model named relative to the project.
    const QString projectPath = projectDir.filePath(QStringLiteral("beside.dimscope"));
    writeText(projectPath, R"({"format": "dimscope.project", "version": 1, "capture": ")"
                               + QFile::encodeName(m_dir.filePath(QStringLiteral("tutorial.safetensors")))
                               + R"(", "model": "tutorial.py:Tutorial"})");

    const WorkingDirectory cwd(started.path());
    MainWindow window;
    ExportController *exporter = window.exportController();
    QVERIFY(openProject(window, projectPath));
    const QString besideIt = QFileInfo(projectDir.filePath(QStringLiteral("tutorial.py"))).canonicalFilePath();
    QCOMPARE(window.document()->modelRef(), projectDir.filePath(QStringLiteral("tutorial.py:Tutorial")));
    exporter->setOutputPath(projectDir.filePath(QStringLiteral("beside.pt2")));
    QSignalSpy done(exporter->service(), &ExportService::finished);
    ConsentAnswerer yes(QStringLiteral("runModelButton"));
    QVERIFY(exporter->startExport(QStringLiteral("cpu")));
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, kExportTimeout);
    QCOMPARE(yes.asked, 1);
    QVERIFY2(yes.shown.contains(besideIt.toHtmlEscaped() + QStringLiteral(":Tutorial")), qPrintable(yes.shown));
    const QString sha256 = QString::fromLatin1(QCryptographicHash::hash(model, QCryptographicHash::Sha256).toHex());
    QVERIFY2(yes.shown.contains(sha256), qPrintable(yes.shown));
    QVERIFY2(!QFile::exists(marker), "the tutorial.py of the folder the GUI started in ran");
    // The project's model ran: torch exported it (the tutorial's inferred constraints
    // pass, or fail on torch's own terms), no import failure.
    const QString kind = window.document()->exportResults()->lastResult().failure.kind;
    QVERIFY2(kind.isEmpty() || kind == QLatin1String("constraint_violation"), qPrintable(kind + QLatin1Char(' ') + exporter->lastError()));
    // Saving writes the reference back relative to the project, as it was.
    QString error;
    QVERIFY2(window.document()->save(projectPath, &error), qPrintable(error));
    QVERIFY2(readText(projectPath).contains("\n  \"model\": \"tutorial.py:Tutorial\",\n"), readText(projectPath).constData());
}

// The yes is for the file's content: a changed file asks again; the same content is
// still allowed; Edit > Preferences lists the approval and Revoke forgets it.
void TestExportUi::changedModelFileAsksAgainAndPreferencesRevoke()
{
    QTemporaryDir projectDir;
    const QString modelPath = projectDir.filePath(QStringLiteral("tutorial.py"));
    const QByteArray model = readText(m_dir.filePath(QStringLiteral("tutorial.py")));
    writeText(modelPath, model);
    ProjectFile project;
    project.capturePath = m_dir.filePath(QStringLiteral("tutorial.safetensors"));
    project.modelRef = modelPath + QStringLiteral(":Tutorial");
    const QString projectPath = projectDir.filePath(QStringLiteral("changing.dimscope"));
    QVERIFY(ProjectFile::write(projectPath, project, nullptr));

    MainWindow window;
    ExportController *exporter = window.exportController();
    QVERIFY(openProject(window, projectPath));
    const QString ref = window.document()->modelRef();
    QVERIFY(ModelConsent::needsApproval(projectPath, ref));
    ModelConsent::approve(projectPath, ref);
    QVERIFY(!ModelConsent::needsApproval(projectPath, ref));

    writeText(modelPath, model + "\nimport os  # changed after the yes\n");
    QVERIFY(ModelConsent::needsApproval(projectPath, ref));
    exporter->setOutputPath(projectDir.filePath(QStringLiteral("changing.pt2")));
    {
        ConsentAnswerer no{QString()};
        QVERIFY(!exporter->startExport(QStringLiteral("cpu")));
        QCOMPARE(no.asked, 1);
        QVERIFY(!exporter->isExporting());
    }
    writeText(modelPath, model);
    QVERIFY(!ModelConsent::needsApproval(projectPath, ref));

    PreferencesDialog preferences;
    auto *list = preferences.findChild<QListWidget *>(QStringLiteral("approvedModelsList"));
    auto *revoke = preferences.findChild<QPushButton *>(QStringLiteral("revokeModelButton"));
    QVERIFY(list && revoke);
    QAbstractItemModelTester tester(list->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    preferences.load();
    QCOMPARE(list->count(), 1);
    const QString canonical = QFileInfo(modelPath).canonicalFilePath();
    QVERIFY2(list->item(0)->text().contains(canonical + QStringLiteral(":Tutorial")), qPrintable(list->item(0)->text()));
    QVERIFY(!revoke->isEnabled());
    list->item(0)->setSelected(true);
    QVERIFY(revoke->isEnabled());
    revoke->click();
    QCOMPARE(list->count(), 0);
    QVERIFY(!ModelConsent::needsApproval(projectPath, ref)); // Cancel would keep it
    preferences.store();
    QVERIFY(ModelConsent::needsApproval(projectPath, ref));
    QVERIFY(ModelConsent::approvals().isEmpty());
}

// The file a project names is read to hash it for the question: a FIFO named model.py
// (which would block the read) and a 65 MB sparse "model" are refused with the reason,
// and nothing is asked or run.
void TestExportUi::unreadableModelFileIsRefusedNotAsked()
{
    QTemporaryDir projectDir;
    const QString fifo = projectDir.filePath(QStringLiteral("fifo.py"));
    QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
    QFile big(projectDir.filePath(QStringLiteral("big.py")));
    QVERIFY(big.open(QIODevice::WriteOnly) && big.resize(65 * 1024 * 1024));
    big.close();
    const QList<QPair<QString, QString>> cases{{QStringLiteral("fifo.py:make"), QStringLiteral("FIFO")},
                                               {QStringLiteral("big.py:make"), QStringLiteral("over 64 MB")}};
    for (const auto &[model, reason] : cases) {
        const QString projectPath = projectDir.filePath(QStringLiteral("p.dimscope"));
        writeText(projectPath, R"({"format": "dimscope.project", "version": 1, "capture": ")"
                                   + QFile::encodeName(m_dir.filePath(QStringLiteral("tutorial.safetensors")))
                                   + R"(", "model": ")" + model.toUtf8() + R"("})");
        MainWindow window;
        ExportController *exporter = window.exportController();
        QVERIFY(openProject(window, projectPath));
        exporter->setOutputPath(projectDir.filePath(QStringLiteral("p.pt2")));
        ConsentAnswerer yes(QStringLiteral("runModelButton"));
        QVERIFY(!exporter->startExport(QStringLiteral("cpu")));
        QCOMPARE(yes.asked, 0);
        QVERIFY2(exporter->lastError().contains(reason) && exporter->lastError().contains(model.section(QLatin1Char(':'), 0, 0)),
                 qPrintable(exporter->lastError()));
        QVERIFY(!exporter->isExporting());
    }
}

DIMSCOPE_TEST_MAIN(TestExportUi)
#include "tst_exportui.moc"
