// SPDX-License-Identifier: GPL-3.0-or-later
// The GUI starts the Python worker without an export, to learn torch's version and
// whether CUDA is there: when a project saved to export on CUDA opens, when the Export
// menu opens and in Preferences. Started in a folder holding a json.py, a torch.py and
// a dimscope/ package (a downloaded bundle: `cd bundle && dimscope open-me.dimscope`),
// none of them may run: the worker starts isolated in a private folder (issue 26,
// item 2). Each probe must still work: the worker reports its torch. Offscreen; needs
// the torch runtime (scripts/setup).
#include "exportcontroller.h"
#include "mainwindow.h"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMenu>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include "deterministictestmain.h"
#include "throwawaysettings.h"

using namespace dimscope;

namespace {

constexpr int kWorkerStartMs = 240000; // torch's import on a loaded machine

// Python files that, when imported, append their own path to `marker`.
void plant(const QString &path, const QString &marker)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QStringLiteral("with open(%1, 'a') as f:\n    f.write(__file__ + '\\n')\n")
                .arg(QLatin1Char('\'') + marker + QLatin1Char('\''))
                .toUtf8());
}

bool settled(const ExportController *exporter)
{
    return exporter->state() == ExportController::WorkerState::Idle
        || exporter->state() == ExportController::WorkerState::Crashed;
}

} // namespace

class TestWorkerIsolation : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanup();
    void probeRunsNothingFromTheCurrentFolder_data();
    void probeRunsNothingFromTheCurrentFolder();

private:
    QString marker() const { return m_settings.filePath(QStringLiteral("ran.txt")); }
    QTemporaryDir m_settings;
    QTemporaryDir m_bundle; // the folder the GUI is started in
    QString m_startFolder;
};

void TestWorkerIsolation::initTestCase()
{
    QVERIFY(test::useThrowawaySettings(m_settings, QStringLiteral("tst_workerisolation")));
    QVERIFY(m_bundle.isValid());
    m_startFolder = QDir::currentPath();
    for (const char *name : {"json.py", "torch.py", "runpy.py", "dimscope/__init__.py"}) {
        const QString path = m_bundle.filePath(QLatin1String(name));
        QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
        plant(path, marker());
    }
    // The demo project, saved to export on CUDA, with its capture beside it.
    const QString demo = QStringLiteral(DIMSCOPE_SOURCE_DIR "/resources/demo/");
    QVERIFY(QFile::copy(demo + QStringLiteral("demo-capture.safetensors"), m_bundle.filePath(QStringLiteral("demo-capture.safetensors"))));
    QFile source(demo + QStringLiteral("demo.dimscope"));
    QVERIFY(source.open(QIODevice::ReadOnly));
    QJsonObject project = QJsonDocument::fromJson(source.readAll()).object();
    QJsonObject options = project.value(QLatin1String("export")).toObject();
    options.insert(QStringLiteral("device"), QStringLiteral("cuda"));
    project.insert(QStringLiteral("export"), options);
    QFile target(m_bundle.filePath(QStringLiteral("open-me.dimscope")));
    QVERIFY(target.open(QIODevice::WriteOnly));
    QVERIFY(target.write(QJsonDocument(project).toJson()) > 0);
}

void TestWorkerIsolation::cleanup() { QDir::setCurrent(m_startFolder); }

void TestWorkerIsolation::probeRunsNothingFromTheCurrentFolder_data()
{
    QTest::addColumn<QString>("probe");
    QTest::newRow("a project saved for CUDA opens") << QStringLiteral("cudaProject");
    QTest::newRow("the Export menu opens") << QStringLiteral("exportMenu");
    QTest::newRow("Preferences") << QStringLiteral("preferences");
}

void TestWorkerIsolation::probeRunsNothingFromTheCurrentFolder()
{
    QFETCH(QString, probe);
    QFile::remove(marker());
    QVERIFY(QDir::setCurrent(m_bundle.path()));
    MainWindow window;
    ExportController *exporter = window.exportController();
    QSignalSpy shown(&window, &MainWindow::captureShown);
    QVERIFY(window.openFile(probe == QLatin1String("cudaProject") ? QStringLiteral("open-me.dimscope")
                                                                  : QStringLiteral("demo-capture.safetensors")));
    QVERIFY(shown.wait(120000));
    if (probe == QLatin1String("exportMenu")) {
        auto *menu = window.findChild<QMenu *>(QStringLiteral("exportMenu"));
        QVERIFY(menu);
        emit menu->aboutToShow();
    } else if (probe == QLatin1String("preferences")) {
        auto *prefs = window.findChild<QAction *>(QStringLiteral("actionPreferences"));
        QVERIFY(prefs);
        // The dialog is modal: it closes once the worker it asked has answered.
        QTimer closer;
        connect(&closer, &QTimer::timeout, this, [exporter] {
            auto *dialog = qobject_cast<QDialog *>(QApplication::activeModalWidget());
            if (dialog && settled(exporter))
                dialog->reject();
        });
        closer.start(50);
        prefs->trigger();
    }
    QTRY_VERIFY_WITH_TIMEOUT(settled(exporter), kWorkerStartMs);
    QVERIFY2(!QFile::exists(marker()), qPrintable(QStringLiteral("the worker ran code from the current folder: ")
                                                  + QString::fromUtf8([&] {
                                                        QFile f(marker());
                                                        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
                                                    }())));
    // The probe itself worked: the worker reported its torch.
    QCOMPARE(exporter->state(), ExportController::WorkerState::Idle);
    QVERIFY(!exporter->torchVersion().isEmpty());
}

DIMSCOPE_TEST_MAIN(TestWorkerIsolation)
#include "tst_workerisolation.moc"
