// SPDX-License-Identifier: GPL-3.0-or-later
// Export > Compile with AOTInductor… (issue 24 item 5), offscreen, driven by objectName:
// the action is in the Export menu, disabled until the document has an exported program
// whose file exists and its capture, and Cancel Compile only while a compile runs. The
// compile itself (the worker's `aoti` request) is tested with the CLI in
// tests/python/test_aoti.py: a minute of C++ compiling per program.
#include "deterministictestmain.h"
#include "document/exportresults.h"
#include "document/projectdocument.h"
#include "mainwindow.h"
#include "throwawaysettings.h"

#include <QAction>
#include <QFile>
#include <QMenu>
#include <QSignalSpy>
#include <QTemporaryDir>

using namespace dimscope;

namespace {

QString demoCapture() { return QStringLiteral(DIMSCOPE_SOURCE_DIR "/resources/demo/demo-capture.safetensors"); }

bool openAndWait(MainWindow &window, const QString &path)
{
    QSignalSpy shown(&window, &MainWindow::captureShown);
    QSignalSpy failed(&window, &MainWindow::openFailed);
    if (!window.openFile(path))
        return false;
    return QTest::qWaitFor([&] { return !shown.isEmpty() || !failed.isEmpty(); }, 20000) && failed.isEmpty();
}

PhasedExportOutcome exportedTo(const QString &output)
{
    ExportedProgram program;
    program.result.exported = true;
    program.result.ok = true;
    program.result.output = output;
    program.calls = {0, 1, 2, 3};
    PhasedExportOutcome o;
    o.callCount = 4;
    o.programs = {program};
    return o;
}

} // namespace

class TestAotiCompile : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(test::useThrowawaySettings(m_dir, QStringLiteral("tst_aoticompile"))); }
    void actionIsInTheExportMenuAndNeedsAProgram();

private:
    QTemporaryDir m_dir;
};

void TestAotiCompile::actionIsInTheExportMenuAndNeedsAProgram()
{
    MainWindow window;
    auto *compile = window.findChild<QAction *>(QStringLiteral("actionCompileAoti"));
    auto *cancel = window.findChild<QAction *>(QStringLiteral("actionCancelAoti"));
    QVERIFY(compile && cancel);
    auto *menu = window.findChild<QMenu *>(QStringLiteral("exportMenu"));
    QVERIFY(menu && menu->actions().contains(compile) && menu->actions().contains(cancel));
    QCOMPARE(compile->text(), QStringLiteral("Compile with &AOTInductor…"));
    QVERIFY(!compile->isEnabled()); // no document
    QVERIFY(!cancel->isEnabled());

    QVERIFY(openAndWait(window, demoCapture()));
    QVERIFY(!compile->isEnabled()); // a capture, nothing exported
    ExportResults *results = window.document()->exportResults();
    results->setOutcome(exportedTo(m_dir.filePath(QStringLiteral("gone.pt2"))), {});
    QVERIFY(!compile->isEnabled()); // the program's file is not there
    const QString program = m_dir.filePath(QStringLiteral("demo.pt2"));
    QFile file(program);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.close();
    results->setOutcome(exportedTo(program), {});
    QVERIFY(compile->isEnabled());
    QVERIFY(!cancel->isEnabled()); // nothing runs
    results->clear();
    QVERIFY(!compile->isEnabled());
}

DIMSCOPE_TEST_MAIN(TestAotiCompile)
#include "tst_aoticompile.moc"
