// SPDX-License-Identifier: GPL-3.0-or-later
// The window fits the screen (issue 28, problems 1 and 3): the Export log stays at
// column 0.
#include "deterministictestmain.h"
#include "exportpanel.h"
#include "kvcapture.h"
#include "mainwindow.h"
#include "document/projectdocument.h"
#include "throwawaysettings.h"

#include <QDockWidget>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSettings>
#include <QTemporaryDir>

using namespace dimscope;

class TestWindowFit : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init() { QSettings().clear(); }
    void exportLogStaysAtColumnZero();

private:
    QTemporaryDir m_dir;
};

void TestWindowFit::initTestCase()
{
    QVERIFY(test::useThrowawaySettings(m_dir, QStringLiteral("tst_windowfit")));
    qputenv("DIMSCOPE_PYTHON", QByteArrayLiteral("/nonexistent/python3"));
}

// Lines longer than the log is wide, appended while the Export dock is closed, then the
// dock shown: the start of every line is in view (the log wraps; it does not scroll
// sideways to the end of the last line when shown).
void TestWindowFit::exportLogStaysAtColumnZero()
{
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    window.showCapture(test::kvCapture(3, 2), QStringLiteral("in-memory"));
    QTRY_VERIFY(window.document()->hasCapture());
    ExportPanel *panel = window.exportPanel();
    auto *exportDock = window.findChild<QDockWidget *>(QStringLiteral("exportDock"));
    exportDock->hide();
    QTRY_VERIFY(!panel->logView()->isVisible());
    const QString longPath = QStringLiteral("/home/user/projects/llava/exports/") + QString(300, QLatin1Char('x'))
                             + QStringLiteral("/llama.phase2.pt2");
    panel->started(QStringLiteral("Exporting"));
    for (int i = 0; i < 5; ++i) {
        panel->appendLog(QStringLiteral("stdout"), QStringLiteral("Saving %1 (%2 of 6)").arg(longPath).arg(i));
        panel->setProgress(QStringLiteral("verify"), QStringLiteral("call %1 of 6 on ").arg(i) + longPath, 0.5);
    }
    panel->finished(true, QStringLiteral("Exported 2 programs to ") + longPath);
    exportDock->show();
    exportDock->raise();
    QTRY_VERIFY(panel->logView()->isVisible());
    QTest::qWait(50);
    QCOMPARE(panel->logView()->horizontalScrollBar()->value(), 0);
    // Also when lines arrive while it is in view.
    panel->appendLog(QStringLiteral("stdout"), QStringLiteral("Verified ") + longPath);
    QTest::qWait(50);
    QCOMPARE(panel->logView()->horizontalScrollBar()->value(), 0);
}

DIMSCOPE_TEST_MAIN(TestWindowFit)
#include "tst_windowfit.moc"
