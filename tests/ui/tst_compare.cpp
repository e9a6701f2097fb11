// SPDX-License-Identifier: GPL-3.0-or-later
// Compare in the window (issue 28, problem 12), offscreen, driven by objectName:
// Export > Compare Exports… once the document has two export results (a re-export
// keeps the one before), its pickers following the history, the differences marked
// and "Differences only"; File > Compare Captures… with a second capture picked in
// the file dialog, read off the GUI thread; a file that is no capture named in the
// banner. The outcomes are set as the export service delivers them (no torch).
#include "comparedialog.h"
#include "deterministictestmain.h"
#include "document/exportresults.h"
#include "document/projectdocument.h"
#include "filedialoganswer.h"
#include "mainwindow.h"
#include "messagebanner.h"
#include "models/comparisonmodel.h"
#include "throwawaysettings.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeView>

using namespace dimscope;

namespace {

QString demoCapture() { return QStringLiteral(DIMSCOPE_SOURCE_DIR "/resources/demo/demo-capture.safetensors"); }
QString otherCapture() { return QStringLiteral(DIMSCOPE_SOURCE_DIR "/fuzz/corpus/capture/multimodal.safetensors"); }

bool openAndWait(MainWindow &window, const QString &path)
{
    QSignalSpy shown(&window, &MainWindow::captureShown);
    QSignalSpy failed(&window, &MainWindow::openFailed);
    if (!window.openFile(path))
        return false;
    return QTest::qWaitFor([&] { return !shown.isEmpty() || !failed.isEmpty(); }, 20000) && failed.isEmpty();
}

QAction *action(MainWindow &window, const char *name) { return window.findChild<QAction *>(QLatin1String(name)); }

// An outcome of the demo's 4 calls: one program serving `served`, the others rejected.
PhasedExportOutcome outcome(const QVector<int> &served)
{
    ExportedProgram program;
    program.result.exported = true;
    program.result.output = QStringLiteral("/tmp/demo.pt2");
    program.calls = served;
    program.description = QStringLiteral("every call");
    for (int call = 0; call < 4; ++call) {
        CallVerification v;
        v.call = call;
        v.status = served.contains(call) ? QStringLiteral("ok") : QStringLiteral("rejected");
        program.result.verification << v;
    }
    program.result.ok = served.size() == 4;
    PhasedExportOutcome o;
    o.callCount = 4;
    o.programs = {program};
    for (int call = 0; call < 4; ++call)
        if (!served.contains(call))
            o.unserved << call;
    return o;
}

// The section of the view's model whose title starts with `title`.
QModelIndex sectionOf(const QAbstractItemModel *model, const QString &title)
{
    for (int i = 0; i < model->rowCount(); ++i)
        if (model->index(i, ComparisonModel::ItemColumn).data().toString().startsWith(title))
            return model->index(i, 0);
    return {};
}

} // namespace

class TestCompare : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(test::useThrowawaySettings(m_dir, QStringLiteral("tst_compare"))); }
    void twoExportsSideBySide();
    void twoCapturesSideBySide();
    void aFileThatIsNoCaptureIsNamed();

private:
    QTemporaryDir m_dir;
};

void TestCompare::twoExportsSideBySide()
{
    MainWindow window;
    QVERIFY(openAndWait(window, demoCapture()));
    QAction *compare = action(window, "actionCompareExports");
    QVERIFY(compare);
    QVERIFY(!compare->isEnabled()); // nothing exported yet
    ExportResults *results = window.document()->exportResults();
    results->setOutcome(outcome({0, 1, 2, 3}), {});
    QVERIFY(!compare->isEnabled()); // one result: nothing to compare it with
    results->setOutcome(outcome({0, 1}), {}); // the re-export keeps the first
    QVERIFY(compare->isEnabled());

    compare->trigger();
    auto *dialog = window.findChild<CompareDialog *>(QStringLiteral("compareDialog"));
    QVERIFY(dialog && dialog->isVisible());
    auto *a = dialog->findChild<QComboBox *>(QStringLiteral("compareA"));
    auto *b = dialog->findChild<QComboBox *>(QStringLiteral("compareB"));
    QVERIFY(a && b && a->isVisibleTo(dialog));
    QCOMPARE(a->count(), 2);
    QVERIFY2(a->currentText().startsWith(QLatin1String("Export 1")), qPrintable(a->currentText()));
    QVERIFY2(b->currentText().startsWith(QLatin1String("Export 2")), qPrintable(b->currentText()));
    auto *view = dialog->findChild<QTreeView *>(QStringLiteral("compareView"));
    const QAbstractItemModel *model = view->model();
    const QModelIndex calls = sectionOf(model, QStringLiteral("Calls served"));
    QVERIFY(calls.isValid());
    QCOMPARE(model->rowCount(calls), 4);
    QCOMPARE(model->index(2, ComparisonModel::MarkColumn, calls).data().toString(), ComparisonModel::mark());
    QCOMPARE(model->index(2, ComparisonModel::BColumn, calls).data().toString(), QStringLiteral("served by no program"));
    QVERIFY(view->isExpanded(calls));
    auto *summary = dialog->findChild<QLabel *>(QStringLiteral("compareSummary"));
    QVERIFY2(summary->text().contains(QLatin1String("difference")), qPrintable(summary->text()));

    // Differences only: calls 0 and 1, served alike, go.
    dialog->findChild<QCheckBox *>(QStringLiteral("compareDifferencesOnly"))->click();
    QCOMPARE(model->rowCount(sectionOf(model, QStringLiteral("Calls served"))), 2);

    // Picking the same export on both sides: nothing differs.
    a->setCurrentIndex(1);
    emit a->activated(1);
    QVERIFY2(summary->text().contains(QLatin1String("same")), qPrintable(summary->text()));

    // A third export: the pickers follow the history and keep what was picked.
    results->setOutcome(outcome({0, 1, 2}), {});
    QCOMPARE(b->count(), 3);
    QVERIFY(a->currentText().startsWith(QLatin1String("Export 2")));

    // Another document: its history starts empty.
    QVERIFY(openAndWait(window, otherCapture()));
    QVERIFY(!compare->isEnabled());
}

void TestCompare::twoCapturesSideBySide()
{
    MainWindow window;
    QAction *compare = action(window, "actionCompareCaptures");
    QVERIFY(compare);
    QVERIFY(!compare->isEnabled()); // no capture open
    QVERIFY(openAndWait(window, demoCapture()));
    QVERIFY(compare->isEnabled());
    QVERIFY(test::answerFileDialog(compare, otherCapture()) > 0);
    CompareDialog *dialog = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((dialog = window.findChild<CompareDialog *>(QStringLiteral("compareDialog"))) && dialog->isVisible(),
                             20000);
    QVERIFY(!dialog->findChild<QComboBox *>(QStringLiteral("compareA"))->isVisibleTo(dialog)); // no pickers
    QVERIFY2(dialog->windowTitle().contains(QLatin1String("multimodal.safetensors")), qPrintable(dialog->windowTitle()));
    const QAbstractItemModel *model = dialog->findChild<QTreeView *>(QStringLiteral("compareView"))->model();
    const QModelIndex leaves = sectionOf(model, QStringLiteral("Input leaves"));
    QVERIFY(leaves.isValid());
    QVERIFY(model->rowCount(leaves) > 0);
    QVERIFY(sectionOf(model, QStringLiteral("Dims that vary")).isValid());
    // Leaves only one capture has read "—" on the other side, marked.
    bool oneSided = false;
    for (int r = 0; r < model->rowCount(leaves); ++r) {
        const QString a = model->index(r, ComparisonModel::AColumn, leaves).data().toString();
        const QString b = model->index(r, ComparisonModel::BColumn, leaves).data().toString();
        if (a == Comparison::none() || b == Comparison::none()) {
            oneSided = true;
            QCOMPARE(model->index(r, ComparisonModel::MarkColumn, leaves).data().toString(), ComparisonModel::mark());
        }
    }
    QVERIFY(oneSided);
}

void TestCompare::aFileThatIsNoCaptureIsNamed()
{
    MainWindow window;
    QVERIFY(openAndWait(window, demoCapture()));
    const QString notACapture = m_dir.filePath(QStringLiteral("notes.safetensors"));
    QFile f(notACapture);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("not a capture");
    f.close();
    QVERIFY(test::answerFileDialog(action(window, "actionCompareCaptures"), notACapture) > 0);
    QTRY_VERIFY_WITH_TIMEOUT(window.banner()->text().contains(QLatin1String("notes.safetensors")), 20000);
    QVERIFY(window.banner()->isVisibleTo(&window));
    auto *dialog = window.findChild<CompareDialog *>(QStringLiteral("compareDialog"));
    QVERIFY(!dialog || !dialog->isVisible());
}

DIMSCOPE_TEST_MAIN(TestCompare)
#include "tst_compare.moc"
