// SPDX-License-Identifier: GPL-3.0-or-later
// The Dims panel at 1280x800 (issue 28, problem 8), on an offscreen screen of that size:
// every Dim name whole, every Status whole (wrapped or in the free width), and the Why
// dock, when an export gives it decisions, leaves the Dims their rows.
#include "capturebuilder.h"
#include "deterministictestmain.h"
#include "dimspanel.h"
#include "mainwindow.h"
#include "models/dimsmodel.h"
#include "document/exportresults.h"
#include "document/projectdocument.h"
#include "export/phasedexportoutcome.h"
#include "throwawaysettings.h"

#include <QDockWidget>
#include <QFile>
#include <QHeaderView>
#include <QScrollBar>
#include <QSettings>
#include <QStyleFactory>
#include <QTableView>
#include <QTemporaryDir>

using namespace dimscope;

namespace {

// Two generate() runs of a T5-like encoder-decoder (batch 2 and 3, encoder lengths 7
// and 5), four decoder steps each: batch, encoder, cache and decoder mask lengths.
Capture t5LikeCapture()
{
    QStringList calls;
    for (int c = 0; c < 8; ++c) {
        const int batch = c < 4 ? 2 : 3, encoder = c < 4 ? 7 : 5, past = c % 4;
        calls << QStringLiteral("attention_mask=%4x%1:i64 decoder_input_ids=%4x1:i64 encoder_outputs=list(%4x%1x32) "
                                "past_key_values=cache(2:%4x4x%2x8) decoder_attention_mask=%4x%3:i64")
                     .arg(encoder).arg(past).arg(past + 1).arg(batch);
    }
    return test::makeCapture(calls.join(QLatin1Char('|')));
}

// Whether `text` is shown whole in cell `index` of `table`: on one line in the column's
// width, or wrapped into the row's height.
bool cellShowsWhole(const QTableView *table, const QModelIndex &index, QString *why)
{
    const QString text = index.data().toString();
    const QRect cell = table->visualRect(index);
    const int padding = 2 * (table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1);
    const int icon = index.data(Qt::DecorationRole).isValid() ? table->iconSize().width() + padding + 4 : 0;
    const QFontMetrics fm(index.data(Qt::FontRole).isValid() ? index.data(Qt::FontRole).value<QFont>() : table->font());
    const int textWidth = cell.width() - padding - icon;
    if (fm.horizontalAdvance(text) <= textWidth)
        return true;
    const int wrapped = fm.boundingRect(QRect(0, 0, textWidth, 100000), Qt::TextWordWrap, text).height();
    if (table->wordWrap() && wrapped <= cell.height() - 2)
        return true;
    *why = QStringLiteral("'%1' needs %2 px (or %3 px high wrapped), the cell is %4x%5")
               .arg(text).arg(fm.horizontalAdvance(text)).arg(wrapped).arg(textWidth).arg(cell.height());
    return false;
}

} // namespace

class TestDimsLayout : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init() { QSettings().clear(); }
    void namesAndStatusFitAt1280x800();

private:
    QTemporaryDir m_dir;
};

void TestDimsLayout::initTestCase()
{
    QVERIFY(test::useThrowawaySettings(m_dir, QStringLiteral("tst_dimslayout")));
    qputenv("DIMSCOPE_PYTHON", QByteArrayLiteral("/nonexistent/python3"));
}

void TestDimsLayout::namesAndStatusFitAt1280x800()
{
    // Given the window maximized on a 1280x800 screen, showing a T5-like capture
    MainWindow window;
    window.showMaximized();
    window.showCapture(t5LikeCapture(), QStringLiteral("t5"));
    QTRY_VERIFY(window.document()->hasCapture());
    QTest::qWait(50);
    DimsModel *model = window.dimsPanel()->model();
    QTableView *table = window.dimsPanel()->table();
    QVERIFY(model->rowCount() >= 4);
    // and a long name the user gave a Dim (names are never elided)
    QCOMPARE(model->renameDim(QStringLiteral("encoder_len"), QStringLiteral("encoder_sequence_length")), QString());
    QTest::qWait(50);

    // Then every Dim name and every Status is whole, in view without scrolling sideways
    const auto checkAll = [&](const char *when) {
        QCOMPARE(table->horizontalScrollBar()->value(), 0);
        for (int r = 0; r < model->rowCount(); ++r) {
            for (int column : {int(DimsModel::NameColumn), int(DimsModel::StatusColumn)}) {
                const QModelIndex index = model->index(r, column);
                QString why;
                QVERIFY2(cellShowsWhole(table, index, &why), qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(when), why)));
                QVERIFY2(table->viewport()->rect().contains(table->visualRect(index)),
                         qPrintable(QStringLiteral("%1: %2 lies outside the table's view (%3,%4 %5x%6 in %7x%8)").arg(QLatin1String(when), index.data().toString()).arg(table->visualRect(index).x()).arg(table->visualRect(index).y()).arg(table->visualRect(index).width()).arg(table->visualRect(index).height()).arg(table->viewport()->width()).arg(table->viewport()->height())));
            }
        }
    };
    checkAll("opened");

    // When an export gives the Why dock decisions, it appears under the Dims
    ShapeExplanation e;
    e.kind = QStringLiteral("specialized");
    e.expression = QStringLiteral("encoder_len == 7");
    e.dims = {QStringLiteral("encoder_len")};
    e.value = 7;
    PhasedExportOutcome outcome;
    outcome.firstAttempt = ExportResult::fromFailure(
        WorkerFailure::make(QStringLiteral("constraint_violation"), QStringLiteral("Constraints violated")));
    outcome.firstAttempt.failure.explanations = {e};
    window.document()->exportResults()->setOutcome(outcome, {});
    auto *why = window.findChild<QDockWidget *>(QStringLiteral("explanationsDock"));
    QTRY_VERIFY(why->isVisible());
    QTest::qWait(50);
    // Then the Dims keep every row in view and more of the height (Why took half before)
    QCOMPARE(table->verticalScrollBar()->maximum(), 0);
    auto *dims = window.findChild<QDockWidget *>(QStringLiteral("dimsDock"));
    QVERIFY2(dims->height() * 10 >= why->height() * 13,
             qPrintable(QStringLiteral("Dims %1 px, Why %2 px").arg(dims->height()).arg(why->height())));
    checkAll("after Why");
}

// A 1280x800 screen: the offscreen platform with one screen of that size.
int main(int argc, char *argv[])
{
    QTemporaryDir screenDir;
    const QString config = screenDir.filePath(QStringLiteral("screen.json"));
    QFile f(config);
    if (!f.open(QIODevice::WriteOnly))
        return 2;
    f.write(R"({"windowFrameMargins": false, "screens": [{"name": "desk", "x": 0, "y": 0, "width": 1280, "height": 800,
                "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})");
    f.close();
    qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.toUtf8());
    dimscope::test::DeterministicEnvironment::prepareProcess();
    QApplication app(argc, argv);
    app.setAttribute(Qt::AA_Use96Dpi, true);
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    dimscope::test::DeterministicEnvironment environment;
    TestDimsLayout tc;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&tc, argc, argv);
}
#include "tst_dimslayout.moc"
