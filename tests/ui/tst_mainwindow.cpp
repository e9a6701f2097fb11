// SPDX-License-Identifier: GPL-3.0-or-later
#include "filedialoganswer.h"
#include "kvcapture.h"
#include "dimspanel.h"
#include "inputsview.h"
#include "leafdetailspanel.h"
#include "mainwindow.h"
#include "messagebanner.h"
#include "models/inputsfilterproxy.h"
#include "models/inputsmodel.h"
#include "plotpanel.h"
#include "document/projectdocument.h"
#include "settings/recentfiles.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QFileDialog>
#include <QTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include "deterministictestmain.h"
#include "throwawaysettings.h"
#include <QTreeView>
#include <QToolBar>
#include <QToolButton>
#include "models/dimsmodel.h"
#include "themeapplier.h"
#include <QScopeGuard>
#include <cmath>

using namespace dimscope;

class TestMainWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void showsCaptureThroughLoader();
    void missingFileShowsBanner();
    void unsupportedFileShowsBanner();
    void filterBoxIsDebounced();
    void selectingLeafFillsPanels();
    void plotSavesPngAndPdf();
    void exportActionsExplainWhyDisabled();
    void recentFilesArePrunedAndCapped();
    void recentMenuListsExistingFiles();
    void opensDemoCaptureThroughAction();
    void badCaptureFileShowsBanner();
    void statisticsFromFile();
    void statisticsUnavailableInMemory();
    void documentIsReadOnlyWhileACaptureOpens();
    void menusHoldTheControllersActions();
    void undoButtonsKeepTheirWidth();
    void exportIconReadsInTheDarkTheme();

private:
    static QString demoCapture()
    {
        return QStringLiteral(DIMSCOPE_SOURCE_DIR "/resources/demo/demo-capture.safetensors");
    }
    QTemporaryDir m_dir;
};

void TestMainWindow::initTestCase()
{
    QVERIFY(test::useThrowawaySettings(m_dir, QStringLiteral("tst_mainwindow")));
}

void TestMainWindow::init() { QSettings().clear(); }

void TestMainWindow::showsCaptureThroughLoader()
{
    MainWindow window;
    QAbstractItemModelTester tester(window.inputsView()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(window.inputsView()->proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy shown(&window, &MainWindow::captureShown);
    window.showCapture(test::kvCapture(3, 4), QStringLiteral("in-memory"));
    QVERIFY(shown.wait(5000));
    QCOMPARE(shown.first().at(0).toString(), QStringLiteral("in-memory"));
    const InputsModel *model = window.inputsView()->model();
    // The cache leaves are in the tree, one per layer and per list
    for (int l = 0; l < 4; ++l) {
        QVERIFY(model->indexForPath(QStringLiteral("past_key_values.key_cache[%1]").arg(l)).isValid());
        QVERIFY(model->indexForPath(QStringLiteral("past_key_values.value_cache[%1]").arg(l)).isValid());
    }
    QCOMPARE(window.loaded()->tree.callCount(), 3);
    auto *tree = window.findChild<QTreeView *>(QStringLiteral("inputsTree"));
    QVERIFY(tree);
    // Top-level arguments start expanded
    const QModelIndex cache = window.inputsView()->proxy()->mapFromSource(model->indexForPath(QStringLiteral("past_key_values")));
    QVERIFY(tree->isExpanded(cache));
    auto *status = window.findChild<QLabel *>(QStringLiteral("statusSummary"));
    QVERIFY(status->text().startsWith(QStringLiteral("3 calls, 12 leaves")));
}

void TestMainWindow::missingFileShowsBanner()
{
    MainWindow window;
    window.show();
    QSignalSpy failed(&window, &MainWindow::openFailed);
    const QString path = m_dir.filePath(QStringLiteral("gone.safetensors"));
    QVERIFY(!window.openFile(path));
    QCOMPARE(failed.size(), 1);
    QVERIFY(window.banner()->isVisible());
    QCOMPARE(window.banner()->kind(), MessageBanner::Kind::Error);
    QVERIFY2(window.banner()->text().contains(path), qPrintable(window.banner()->text()));
    QVERIFY(!window.loaded());
}

void TestMainWindow::unsupportedFileShowsBanner()
{
    MainWindow window;
    window.show();
    const QString path = m_dir.filePath(QStringLiteral("model.pt2"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("not a zip");
    f.close();
    // The file is there, so the open starts; reading it (off the GUI thread) fails.
    QSignalSpy failed(&window, &MainWindow::openFailed);
    QVERIFY(window.openFile(path));
    QVERIFY(failed.wait(5000));
    QCOMPARE(failed.first().at(0).toString(), path);
    QVERIFY(window.banner()->isVisible());
    QCOMPARE(window.banner()->kind(), MessageBanner::Kind::Error);
    QVERIFY(window.banner()->text().contains(QStringLiteral("model.pt2")));
    QVERIFY2(window.banner()->text().contains(failed.first().at(1).toString()), qPrintable(window.banner()->text()));
}

void TestMainWindow::filterBoxIsDebounced()
{
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::captureShown);
    window.showCapture(test::kvCapture(3, 3), QStringLiteral("in-memory"));
    QVERIFY(shown.wait(5000));
    InputsFilterProxy *proxy = window.inputsView()->proxy();
    QCOMPARE(proxy->rowCount(), 5);
    auto *filter = window.findChild<QLineEdit *>(QStringLiteral("inputsFilter"));
    QVERIFY(filter);
    QTest::keyClicks(filter, QStringLiteral("attention"));
    // Not applied on the key stroke, only once typing pauses
    QCOMPARE(proxy->rowCount(), 5);
    QTRY_COMPARE_WITH_TIMEOUT(proxy->rowCount(), 1, 2000);
    QCOMPARE(proxy->index(0, 0).data().toString(), QStringLiteral("attention_mask"));
    // Escape clears the filter at once.
    QTest::keyClick(filter, Qt::Key_Escape);
    QVERIFY(filter->text().isEmpty());
    QCOMPARE(proxy->rowCount(), 5);
}

void TestMainWindow::selectingLeafFillsPanels()
{
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::captureShown);
    window.showCapture(test::kvCapture(4, 2), QStringLiteral("in-memory"));
    QVERIFY(shown.wait(5000));
    const QModelIndex leaf = window.inputsView()->proxy()->mapFromSource(
        window.inputsView()->model()->indexForPath(QStringLiteral("past_key_values.key_cache[1]")));
    window.inputsView()->tree()->setCurrentIndex(leaf);

    QTableWidget *table = window.detailsPanel()->table();
    QCOMPARE(table->rowCount(), 4);
    QCOMPARE(table->item(0, LeafDetailsPanel::DTypeColumn)->text(), QStringLiteral("absent"));
    QCOMPARE(table->item(1, LeafDetailsPanel::DTypeColumn)->text(), QStringLiteral("float32"));
    QCOMPARE(table->item(3, LeafDetailsPanel::ShapeColumn)->text(), QStringLiteral("2 x 4 x 7 x 8"));
    QCOMPARE(table->item(2, LeafDetailsPanel::DeviceColumn)->text(), QStringLiteral("cpu"));

    // The plot follows the first dynamic dim: the cache length, calls 1..3
    PlotPanel *plot = window.plotPanel();
    QCOMPARE(plot->dimension(), 2);
    QCOMPARE(plot->points(), (QVector<QPointF>{{1, 5}, {2, 6}, {3, 7}}));
    plot->showDimension(0);
    QCOMPARE(plot->points(), (QVector<QPointF>{{1, 2}, {2, 2}, {3, 2}}));
}

void TestMainWindow::plotSavesPngAndPdf()
{
    MainWindow window;
    window.show();
    QSignalSpy shown(&window, &MainWindow::captureShown);
    window.showCapture(test::kvCapture(3, 1), QStringLiteral("in-memory"));
    QVERIFY(shown.wait(5000));
    window.plotPanel()->showNode(window.inputsView()->model()->nodeOf(
        window.inputsView()->model()->indexForPath(QStringLiteral("input_ids"))));
    QCOMPARE(window.plotPanel()->points().size(), 3);
    for (const QString &name : {QStringLiteral("plot.png"), QStringLiteral("plot.pdf")}) {
        const QString path = m_dir.filePath(name);
        QVERIFY(window.plotPanel()->saveTo(path));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray head = f.read(4);
        QCOMPARE(head, name.endsWith(QLatin1String(".png")) ? QByteArray("\x89PNG") : QByteArray("%PDF"));
    }
    QVERIFY(!window.plotPanel()->saveTo(m_dir.filePath(QStringLiteral("plot.bmpx"))));
}

void TestMainWindow::exportActionsExplainWhyDisabled()
{
    MainWindow window;
    for (const char *name : {"actionExportCpu", "actionExportCuda", "actionCopyDynamicShapes", "actionSaveConstraints"}) {
        auto *action = window.findChild<QAction *>(QString::fromLatin1(name));
        QVERIFY2(action, name);
        QVERIFY(!action->isEnabled());
        QVERIFY(!action->toolTip().isEmpty());
        QVERIFY(action->toolTip() != action->text());
    }
    auto *open = window.findChild<QAction *>(QStringLiteral("actionOpenCapture"));
    QVERIFY(open && open->isEnabled());
    QCOMPARE(open->shortcut(), QKeySequence(QKeySequence::Open));
}

void TestMainWindow::recentFilesArePrunedAndCapped()
{
    QSettings settings;
    RecentFiles recent(settings);
    QStringList paths;
    for (int i = 0; i < 12; ++i) {
        const QString path = m_dir.filePath(QStringLiteral("c%1.safetensors").arg(i));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        paths << path;
        recent.add(path);
    }
    // Newest first, at most 9
    QStringList files = recent.files();
    QCOMPARE(files.size(), RecentFiles::maxCount);
    QCOMPARE(files.first(), paths.last());
    QCOMPARE(files.last(), paths.at(3));
    // Re-adding moves a file to the top without duplicating it
    recent.add(paths.at(5));
    files = recent.files();
    QCOMPARE(files.first(), paths.at(5));
    QCOMPARE(files.count(paths.at(5)), 1);
    // A deleted file disappears, and the pruning is stored
    QVERIFY(QFile::remove(paths.at(10)));
    files = recent.files();
    QVERIFY(!files.contains(paths.at(10)));
    QVERIFY(!settings.value(QStringLiteral("files/recent")).toStringList().contains(paths.at(10)));
}

void TestMainWindow::recentMenuListsExistingFiles()
{
    const QString kept = m_dir.filePath(QStringLiteral("kept.safetensors"));
    QFile f(kept);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.close();
    {
        QSettings settings;
        settings.setValue(QStringLiteral("files/recent"),
                          QStringList{m_dir.filePath(QStringLiteral("missing.safetensors")), kept});
    }
    MainWindow window;
    QMenu *menu = window.recentMenu();
    emit menu->aboutToShow();
    QStringList listed;
    for (QAction *a : menu->actions()) {
        if (a->data().isValid())
            listed << a->data().toString();
    }
    QCOMPARE(listed, QStringList{kept});
    // Each entry names its folder too (captures of several runs often share a name).
    const QList<QAction *> actions = menu->actions();
    const auto keptAction = std::find_if(actions.cbegin(), actions.cend(), [&](QAction *a) { return a->data().toString() == kept; });
    QVERIFY(keptAction != actions.cend());
    const QString text = (*keptAction)->text();
    QVERIFY2(text.startsWith(QStringLiteral("&1 kept.safetensors — ")), qPrintable(text));
    QVERIFY2(text.endsWith(QFileInfo(QDir::toNativeSeparators(m_dir.path())).fileName()), qPrintable(text));
}

void TestMainWindow::opensDemoCaptureThroughAction()
{
    // Given the main window and the bundled demo capture
    MainWindow window;
    window.show();
    QAbstractItemModelTester tester(window.inputsView()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy shown(&window, &MainWindow::captureShown);
    // When File > Open Capture… is triggered and the demo chosen in the dialog
    const int answered = test::answerFileDialog(window.findChild<QAction *>(QStringLiteral("actionOpenCapture")), demoCapture());
    QVERIFY(answered > 0 && answered <= 250);
    // Then the tree shows the cache leaves with their dynamic length
    QVERIFY(shown.wait(10000));
    const InputsModel *model = window.inputsView()->model();
    for (const QString &path : {QStringLiteral("past_key_values.key_cache[0]"), QStringLiteral("past_key_values.key_cache[1]"),
                                QStringLiteral("past_key_values.value_cache[0]"), QStringLiteral("past_key_values.value_cache[1]")}) {
        const QModelIndex shape = model->indexForPath(path, InputsModel::ShapeColumn);
        QVERIFY2(shape.isValid(), qPrintable(path));
        // the prefill passes an empty cache (value_if_missing), then it grows to 11
        QCOMPARE(shape.data().toString(), QStringLiteral("2 x 2 x [0..11] x 8"));
    }
    QCOMPARE(model->indexForPath(QStringLiteral("input_ids"), InputsModel::ShapeColumn).data().toString(),
             QStringLiteral("2 x [1..5]"));
    QCOMPARE(window.currentFile(), QFileInfo(demoCapture()).absoluteFilePath());
    QVERIFY(window.windowTitle().contains(QStringLiteral("demo-capture.safetensors")));
    QSettings settings;
    QCOMPARE(RecentFiles(settings).files().value(0), QFileInfo(demoCapture()).absoluteFilePath());
    QVERIFY(!window.banner()->isVisible());
    // The first leaf whose shape changes is selected and shown in the panels
    QCOMPARE(window.inputsView()->currentNode(), model->nodeOf(model->indexForPath(QStringLiteral("input_ids"))));
    QCOMPARE(window.detailsPanel()->table()->rowCount(), 6);
    QCOMPARE(window.plotPanel()->points(), (QVector<QPointF>{{0, 5}, {1, 1}, {2, 1}, {3, 1}, {4, 3}, {5, 1}}));
}

void TestMainWindow::badCaptureFileShowsBanner()
{
    MainWindow window;
    window.show();
    const QString path = m_dir.filePath(QStringLiteral("garbage.safetensors"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("\xff\xff\xff\xff\xff\xff\xff\x7fnot json at all");
    f.close();
    QSignalSpy failed(&window, &MainWindow::openFailed);
    QVERIFY(window.openFile(path)); // loading starts; the reader says no off the GUI thread
    QVERIFY(failed.wait(5000));
    QVERIFY(window.banner()->isVisible());
    QVERIFY2(window.banner()->text().contains(QStringLiteral("garbage.safetensors")), qPrintable(window.banner()->text()));
    QVERIFY(!window.loaded());
    QSettings settings;
    QVERIFY(!RecentFiles(settings).files().contains(path));
}

void TestMainWindow::statisticsFromFile()
{
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::captureShown);
    QVERIFY(window.openFile(demoCapture()));
    QVERIFY(shown.wait(10000));
    QSignalSpy done(window.detailsPanel(), &LeafDetailsPanel::statisticsFinished);
    const QModelIndex leaf = window.inputsView()->proxy()->mapFromSource(
        window.inputsView()->model()->indexForPath(QStringLiteral("attention_mask")));
    window.inputsView()->tree()->setCurrentIndex(leaf);
    QVERIFY(done.wait(10000));
    QTableWidget *table = window.detailsPanel()->table();
    QCOMPARE(table->rowCount(), 6);
    // The demo's padded mask: one 0 among ten values in the prefill, among twelve next
    auto row = [&](int c) {
        QStringList cells;
        for (int col = LeafDetailsPanel::MinColumn; col < LeafDetailsPanel::ColumnCount; ++col)
            cells << table->item(c, col)->text();
        return cells.join(QLatin1Char(' '));
    };
    QCOMPARE(row(0), QStringLiteral("0 1 0.9 0.3 0 0"));
    QCOMPARE(row(1), QStringLiteral("0 1 0.916667 0.276385 0 0"));
}

void TestMainWindow::statisticsUnavailableInMemory()
{
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::captureShown);
    window.showCapture(test::kvCapture(2, 1), QStringLiteral("in-memory"));
    QVERIFY(shown.wait(5000));
    QSignalSpy done(window.detailsPanel(), &LeafDetailsPanel::statisticsFinished);
    window.detailsPanel()->showNode(window.inputsView()->model()->nodeOf(
        window.inputsView()->model()->indexForPath(QStringLiteral("input_ids"))));
    QVERIFY(done.wait(5000));
    // No bytes behind an in-memory capture: a dash with the reason, not a crash
    QTableWidgetItem *min = window.detailsPanel()->table()->item(0, LeafDetailsPanel::MinColumn);
    QCOMPARE(min->text(), QStringLiteral("–"));
    QVERIFY(!min->toolTip().isEmpty());
}

void TestMainWindow::documentIsReadOnlyWhileACaptureOpens()
{
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::captureShown);
    window.showCapture(test::kvCapture(3, 2), QStringLiteral("first"));
    QVERIFY(shown.wait(5000));
    ProjectDocument *doc = window.document();
    const QString firstDim = doc->constraints().dims().first().name;
    QCOMPARE(doc->edit(QStringLiteral("Rename"), [&](ConstraintSet &s) { return s.renameDim(firstDim, QStringLiteral("renamed")); }),
             QString());
    auto *undo = window.findChild<QAction *>(QStringLiteral("actionUndo"));
    QVERIFY(undo && undo->isEnabled());

    // Another capture is being opened: an edit now would be dropped when it arrives,
    // so edits and undo wait; the document still shows the first capture meanwhile.
    window.showCapture(test::kvCapture(4, 2), QStringLiteral("second"));
    QVERIFY(doc->isLoading());
    const QString refused = doc->edit(QStringLiteral("Rename"), [](ConstraintSet &s) {
        return s.renameDim(QStringLiteral("renamed"), QStringLiteral("again"));
    });
    QVERIFY2(refused.contains(QStringLiteral("being opened")), qPrintable(refused));
    QVERIFY(doc->constraints().dim(QStringLiteral("renamed")));
    QVERIFY(!undo->isEnabled());
    QVERIFY(!window.dimsPanel()->isEnabled());
    QCOMPARE(window.loaded()->tree.callCount(), 3);

    QVERIFY(shown.wait(5000));
    QCOMPARE(shown.last().at(0).toString(), QStringLiteral("second"));
    QVERIFY(!doc->isLoading());
    QCOMPARE(window.loaded()->tree.callCount(), 4);
    QCOMPARE(window.loaded()->capture.calls.size(), doc->capture().calls.size()); // one owner: the document
    QVERIFY(window.dimsPanel()->isEnabled());
    QVERIFY(!undo->isEnabled()); // a new capture starts a new history

    // A failed open gives the document back as it was.
    QVERIFY(!window.openFile(m_dir.filePath(QStringLiteral("missing.safetensors"))));
    QVERIFY(!doc->isLoading());
    QCOMPARE(window.loaded()->tree.callCount(), 4);
}

void TestMainWindow::menusHoldTheControllersActions()
{
    // Each menu is built once, from the actions of the objects that carry them out.
    MainWindow window;
    const auto names = [&](const char *menu) {
        QStringList out;
        auto *m = window.findChild<QMenu *>(QString::fromLatin1(menu));
        if (!m)
            return out;
        for (QAction *a : m->actions())
            if (!a->objectName().isEmpty())
                out << a->objectName();
        return out;
    };
    QCOMPARE(names("exportMenu"), (QStringList{QStringLiteral("actionExportCpu"), QStringLiteral("actionExportCuda"),
                                                QStringLiteral("actionCancelExport"), QStringLiteral("actionCopyDynamicShapes"),
                                                QStringLiteral("actionSaveConstraints"), QStringLiteral("actionExportOptions"),
                                                QStringLiteral("actionCompareExports"), QStringLiteral("actionVerifyWith"),
                                                QStringLiteral("actionStopVerifyingWith"), QStringLiteral("actionExportOutputFile"),
                                                QStringLiteral("actionCompileAoti"), QStringLiteral("actionCancelAoti")}));
    const QStringList file = names("fileMenu");
    QCOMPARE(file.mid(0, 3), (QStringList{QStringLiteral("actionOpenCapture"), QStringLiteral("actionOpenModel"),
                                          QStringLiteral("actionOpenProject")}));
    QVERIFY(file.contains(QStringLiteral("actionCompareCaptures")));
    for (const QString &name : names("exportMenu") + file)
        QCOMPARE(window.findChildren<QAction *>(name).size(), 1); // no leftover placeholder
    auto *panelsMenu = window.findChild<QMenu *>(QStringLiteral("panelsMenu"));
    QVERIFY(panelsMenu);
    QStringList docks;
    for (QAction *a : panelsMenu->actions())
        docks << a->text().remove(QLatin1Char('&'));
    for (const char *dock : {"Leaf details", "Dims", "Plot", "Export", "Why"})
        QVERIFY2(docks.contains(QString::fromLatin1(dock)), dock);
    QVERIFY(names("viewMenu").contains(QStringLiteral("actionResetLayout")));
}

DIMSCOPE_TEST_MAIN(TestMainWindow)
// Undo and Redo on the toolbar keep their width whatever the command (issue 28 problem
// 10): the command is in the tooltip and the Edit menu, so Export on CPU stays put.
void TestMainWindow::undoButtonsKeepTheirWidth()
{
    MainWindow window;
    window.resize(1280, 800);
    window.show();
    window.showCapture(test::kvCapture(3, 2), QStringLiteral("in-memory"));
    QTRY_VERIFY(window.document()->hasCapture());
    auto *bar = window.findChild<QToolBar *>(QStringLiteral("mainToolBar"));
    auto *undo = window.findChild<QAction *>(QStringLiteral("actionUndo"));
    auto *exportCpu = window.findChild<QAction *>(QStringLiteral("actionExportCpu"));
    QVERIFY(bar && undo && exportCpu);
    QTest::qWait(20);
    const int before = bar->widgetForAction(exportCpu)->x();

    // When a Dim gets a long name (the undo command names it)
    DimsModel *dims = window.dimsPanel()->model();
    const QString from = dims->dimName(0);
    const QString longName = QStringLiteral("a_rather_long_dim_name_for_the_prompt_length");
    QCOMPARE(dims->renameDim(from, longName), QString());
    QTest::qWait(20);

    // Then the buttons say Undo, the tooltip says what, and Export on CPU has not moved
    QCOMPARE(bar->widgetForAction(exportCpu)->x(), before);
    QVERIFY2(undo->toolTip().contains(longName), qPrintable(undo->toolTip()));
    QVERIFY2(undo->text().contains(longName), qPrintable(undo->text())); // the Edit menu
    QVERIFY(!qobject_cast<QToolButton *>(bar->widgetForAction(undo))->text().contains(longName));
}

// The Export on CPU icon follows the theme (issue 28 problem 10): on the dark toolbar
// its glyph stands out at 3:1 at least (WCAG's contrast for graphics); Qt's standard
// play pixmap was black on #353535.
void TestMainWindow::exportIconReadsInTheDarkTheme()
{
    const auto contrast = [](const QColor &a, const QColor &b) {
        const auto luminance = [](const QColor &c) {
            const auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
            return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
        };
        const double la = luminance(a), lb = luminance(b);
        return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
    };
    const auto restore = qScopeGuard([] { ThemeApplier::apply(Theme::System); });
    MainWindow window;
    window.show();
    auto *bar = window.findChild<QToolBar *>(QStringLiteral("mainToolBar"));
    auto *exportCpu = window.findChild<QAction *>(QStringLiteral("actionExportCpu"));
    QVERIFY(bar && exportCpu);
    for (Theme theme : {Theme::Dark, Theme::Light}) {
        ThemeApplier::apply(theme);
        QCoreApplication::processEvents();
        const QColor background = bar->palette().color(QPalette::Button);
        // The glyph's colour: the average of its opaque pixels.
        const QImage icon = exportCpu->icon().pixmap(bar->iconSize()).toImage().convertToFormat(QImage::Format_ARGB32);
        double r = 0, g = 0, b = 0;
        int opaque = 0;
        for (int y = 0; y < icon.height(); ++y) {
            for (int x = 0; x < icon.width(); ++x) {
                const QColor c = icon.pixelColor(x, y);
                if (c.alpha() < 200)
                    continue;
                r += c.redF(), g += c.greenF(), b += c.blueF();
                ++opaque;
            }
        }
        QVERIFY(opaque > 0);
        const QColor glyph = QColor::fromRgbF(float(r / opaque), float(g / opaque), float(b / opaque));
        QVERIFY2(contrast(glyph, background) >= 3.0,
                 qPrintable(QStringLiteral("%1 on %2: %3").arg(glyph.name(), background.name()).arg(contrast(glyph, background))));
    }
}

#include "tst_mainwindow.moc"
