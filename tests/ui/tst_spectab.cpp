// SPDX-License-Identifier: GPL-3.0-or-later
// The Spec tab (issue 28 problem 11): the export as a Python script in the chosen
// dialect, following edits and undo, with Copy and Save as .py…, driven by objectName.
#include "dimspanel.h"
#include "document/projectdocument.h"
#include "mainwindow.h"
#include "messagebanner.h"
#include "models/dimsmodel.h"
#include "spectab.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFile>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

using namespace dimscope;

class TestSpecTab : public QObject
{
    Q_OBJECT
private slots:
    void followsEditsAndUndo();
    void dialectAndTorchVersionChangeTheScript();
    void copyAndSaveAsPython();
    void hiddenTabCatchesUpWhenShown();

private:
    static QString demoCapture() { return QStringLiteral(DIMSCOPE_SOURCE_DIR "/resources/demo/demo-capture.safetensors"); }
    // The window on the demo capture, the Spec tab current.
    static bool openDemo(MainWindow &window);
    static QString specText(MainWindow &window)
    {
        return window.findChild<QPlainTextEdit *>(QStringLiteral("specText"))->toPlainText();
    }
    static bool renameDim(MainWindow &window, const QString &from, const QString &to)
    {
        DimsModel *model = window.dimsPanel()->model();
        return model->setData(model->index(model->rowOf(from), DimsModel::NameColumn), to);
    }
};

bool TestSpecTab::openDemo(MainWindow &window)
{
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
        return false;
    QSignalSpy shown(&window, &MainWindow::captureShown);
    if (!window.openFile(demoCapture()) || !shown.wait(10000))
        return false;
    QTabWidget *tabs = window.documentTabs();
    if (!tabs->isTabVisible(MainWindow::SpecScriptTab) || tabs->tabText(MainWindow::SpecScriptTab) != QLatin1String("Spec"))
        return false;
    tabs->setCurrentIndex(MainWindow::SpecScriptTab);
    return window.specTab()->isVisible();
}

void TestSpecTab::followsEditsAndUndo()
{
    // Given the demo in the window, the Spec tab showing the named Dims' script
    MainWindow window;
    QVERIFY(openDemo(window));
    auto *text = window.findChild<QPlainTextEdit *>(QStringLiteral("specText"));
    QVERIFY(text && text->isReadOnly());
    const QString before = specText(window);
    QVERIFY2(before.contains(QLatin1String("seq_len = Dim(\"seq_len\", min=1)\n")), qPrintable(before));
    QVERIFY(before.contains(QLatin1String("program = torch.export.export(model, args, kwargs, dynamic_shapes=dynamic_shapes")));
    QVERIFY(before.contains(QLatin1String("dimscope.load_program(\"demo-capture.pt2\")")));

    // When seq_len is renamed in the Dims panel
    QSignalSpy changed(window.specTab(), &SpecTab::textChanged);
    QVERIFY(renameDim(window, QStringLiteral("seq_len"), QStringLiteral("q_len")));
    // Then the script names q_len at once
    QCOMPARE(changed.count(), 1);
    QString after = specText(window);
    QVERIFY2(after.contains(QLatin1String("q_len = Dim(\"q_len\", min=1)\n")), qPrintable(after));
    QVERIFY(after.contains(QLatin1String("\"input_ids\": {1: q_len},")));
    QVERIFY(!after.contains(QLatin1String("seq_len")));

    // And its range edit too
    DimsModel *model = window.dimsPanel()->model();
    QVERIFY(model->setData(model->index(model->rowOf(QStringLiteral("q_len")), DimsModel::MaxColumn), QStringLiteral("512")));
    QVERIFY(specText(window).contains(QLatin1String("q_len = Dim(\"q_len\", min=1, max=512)\n")));

    // When both are undone with Edit > Undo, the script is the first one again
    auto *undo = window.findChild<QAction *>(QStringLiteral("actionUndo"));
    QVERIFY(undo);
    undo->trigger();
    QVERIFY(specText(window).contains(QLatin1String("q_len = Dim(\"q_len\", min=1)\n")));
    undo->trigger();
    QCOMPARE(specText(window), before);
}

void TestSpecTab::dialectAndTorchVersionChangeTheScript()
{
    MainWindow window;
    QVERIFY(openDemo(window));
    auto *combo = window.findChild<QComboBox *>(QStringLiteral("specDialectCombo"));
    QVERIFY(combo);
    QCOMPARE(combo->count(), 4);
    QCOMPARE(combo->currentText(), QStringLiteral("Named Dims"));

    combo->setCurrentIndex(combo->findData(QStringLiteral("shapes-collection")));
    QVERIFY(specText(window).contains(QLatin1String("shapes = torch.export.ShapesCollection()\n")));
    combo->setCurrentIndex(combo->findData(QStringLiteral("additional-inputs")));
    QVERIFY(specText(window).contains(QLatin1String("additional = torch.export.AdditionalInputs()\n")));

    // Hints: a run-time check while the worker has not said its torch, then what it said
    combo->setCurrentIndex(combo->findData(QStringLiteral("hints")));
    QVERIFY(specText(window).contains(QLatin1String("seq_len = bounded(Dim.DYNAMIC, min=1)\n")));
    window.specTab()->setTorchVersion(QStringLiteral("2.14.1"));
    QVERIFY(specText(window).contains(QLatin1String("seq_len = Dim.DYNAMIC(min=1)\n")));
    window.specTab()->setTorchVersion(QStringLiteral("2.6.0"));
    QVERIFY(specText(window).contains(QLatin1String("seq_len = Dim.DYNAMIC  # min=1: torch 2.6.0 takes no range on a hint\n")));
}

void TestSpecTab::copyAndSaveAsPython()
{
    MainWindow window;
    QVERIFY(openDemo(window));
    QApplication::clipboard()->clear();
    auto *copy = window.findChild<QPushButton *>(QStringLiteral("specCopyButton"));
    QVERIFY(copy && copy->isEnabled());
    QTest::mouseClick(copy, Qt::LeftButton);
    QCOMPARE(QApplication::clipboard()->text(), specText(window));
    QVERIFY(window.banner()->text().contains(QLatin1String("copied to the clipboard")));

    // Save as .py… writes the text as it is
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("export.py"));
    window.specTab()->setSavePathHook([&](const QString &suggested) {
        return suggested.endsWith(QLatin1String("/demo-capture_export.py")) ? path : QString();
    });
    QTest::mouseClick(window.findChild<QPushButton *>(QStringLiteral("specSaveButton")), Qt::LeftButton);
    QFile saved(path);
    QVERIFY(saved.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(saved.readAll()), specText(window));
    QVERIFY(window.banner()->text().contains(QLatin1String("Spec saved to")));

    // A folder that cannot be written: an error naming the file, nothing written
    const QString bad = dir.filePath(QStringLiteral("missing/export.py"));
    window.specTab()->setSavePathHook([&](const QString &) { return bad; });
    QTest::mouseClick(window.findChild<QPushButton *>(QStringLiteral("specSaveButton")), Qt::LeftButton);
    QCOMPARE(window.banner()->kind(), MessageBanner::Kind::Error);
    QVERIFY2(window.banner()->text().contains(QLatin1String("missing/export.py")), qPrintable(window.banner()->text()));
    QVERIFY(!QFile::exists(bad));
}

void TestSpecTab::hiddenTabCatchesUpWhenShown()
{
    MainWindow window;
    QVERIFY(openDemo(window));
    window.documentTabs()->setCurrentIndex(MainWindow::InputsTab);
    QSignalSpy changed(window.specTab(), &SpecTab::textChanged);
    QVERIFY(renameDim(window, QStringLiteral("seq_len"), QStringLiteral("q_len")));
    QCOMPARE(changed.count(), 0); // hidden: not written yet
    // View > Go To > Spec (Ctrl+8) brings it to the front, written anew
    auto *goTo = window.findChild<QAction *>(QStringLiteral("actionFocusSpec"));
    QVERIFY(goTo);
    QCOMPARE(goTo->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_8));
    goTo->trigger();
    QCOMPARE(window.documentTabs()->currentIndex(), int(MainWindow::SpecScriptTab));
    QCOMPARE(changed.count(), 1);
    QVERIFY(specText(window).contains(QLatin1String("q_len = Dim(\"q_len\", min=1)\n")));
}

QTEST_MAIN(TestSpecTab)
#include "tst_spectab.moc"
