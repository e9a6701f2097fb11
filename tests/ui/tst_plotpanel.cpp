// SPDX-License-Identifier: GPL-3.0-or-later
// The plot panel as a user sees it on the demo project (issue 13, problem 7), the
// themes (Preferences' choice recolours the application and the plot) and the
// Preferences dialog's layout (problem 8). Widgets are found by objectName.
// qcustomplot.h uses foreach in templates: allowed here (see the top CMakeLists.txt).
#undef QT_NO_FOREACH
#include "filedialoganswer.h"
#include "capture/capturereader.h"
#include "capturebuilder.h"
#include "models/dimcolours.h"
#include "models/dimsmodel.h"
#include "plotpanel.h"
#include "preferencesdialog.h"
#include "project/projectfile.h"
#include "document/projectdocument.h"
#include "settings/settingskeys.h"
#include "inference/shapeinference.h"
#include "themeapplier.h"

#include <qcustomplot.h>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QTemporaryDir>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include "deterministictestmain.h"
#include "throwawaysettings.h"

using namespace dimscope;

namespace {
QString demoDir() { return QStringLiteral(DIMSCOPE_SOURCE_DIR "/resources/demo"); }

// WCAG's contrast ratio of two colours (1..21).
double contrast(const QColor &a, const QColor &b)
{
    auto luminance = [](const QColor &c) {
        auto channel = [](double v) { return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + 0.0722 * channel(c.blueF());
    };
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// The colour the plot paints its background with (a corner of its rendering).
QColor backgroundOf(QCustomPlot *plot) { return plot->toPixmap().toImage().pixelColor(1, 1); }
} // namespace

class TestPlotPanel : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanup();
    void constantDimGetsASmallRange();
    void farMaxIsAnEdgeMarkerNotAFlattenedPlot();
    void resetViewShowsEveryMarkerWhole();
    void hoverShowsCallAndValue();
    void savedPngCarriesTheTitleAndIsConfirmed();
    void savedPdfCarriesTheTitle();
    void saveErrorNamesTheFile();
    void themeSwitchRecoloursApplicationAndPlot();
    void darkPaletteIsReadable();
    void dimColoursReadInTheDarkTheme();
    void preferencesThemeAppliesAtOnceAndCancelRestores();
    void preferencesShowEveryLabelWhole();
    void sizeTicksAreWholeNumbers();
    void callWithoutTheLeafIsAGap();
    void saveProposesAFileNamedAfterThePlot();

private:
    void loadDemo();
    QCPRange yRange() const { return m_plot->plot()->yAxis->range(); }

    QTemporaryDir m_dir;
    QPalette m_platformPalette;
    std::unique_ptr<ProjectDocument> m_document;
    std::unique_ptr<QWidget> m_window;
    PlotPanel *m_plot = nullptr; // in m_window
};

void TestPlotPanel::initTestCase()
{
    QVERIFY(test::useThrowawaySettings(m_dir, QStringLiteral("tst_plotpanel")));
    m_platformPalette = QApplication::palette();
}

void TestPlotPanel::init()
{
    QSettings().clear();
    m_document = std::make_unique<ProjectDocument>();
    // In a window, like the Plot dock in the main window (palette changes reach child
    // widgets the way they reach the dock's)
    m_window = std::make_unique<QWidget>();
    m_plot = new PlotPanel(m_window.get());
    (new QVBoxLayout(m_window.get()))->addWidget(m_plot);
    m_plot->setDocument(m_document.get());
    m_window->resize(640, 320);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    loadDemo();
}

void TestPlotPanel::cleanup()
{
    m_window.reset();
    m_document.reset();
    ThemeApplier::apply(Theme::System);
}

void TestPlotPanel::loadDemo()
{
    QString error;
    const QString capturePath = demoDir() + QStringLiteral("/demo-capture.safetensors");
    std::optional<Capture> capture = CaptureReader::open(capturePath, &error);
    QVERIFY2(capture, qPrintable(error));
    const std::optional<ProjectFile> project = ProjectFile::read(demoDir() + QStringLiteral("/demo.dimscope"), &error);
    QVERIFY2(project && project->constraints, qPrintable(error));
    m_document->setCapture(capturePath, *capture, ShapeInference::infer(*capture), project->constraints);
}

void TestPlotPanel::constantDimGetsASmallRange()
{
    // Given the demo's batch Dim, 2 in every call, with min 2
    m_plot->showDim(QStringLiteral("batch"));
    QVERIFY(!m_plot->points().isEmpty());
    for (const QPointF &p : m_plot->points())
        QCOMPARE(p.y(), 2.0);
    // Then the y axis is a small band around 2 (it went from -250 to 300)
    QVERIFY2(yRange().lower > 0 && yRange().upper < 4,
             qPrintable(QStringLiteral("%1..%2").arg(yRange().lower).arg(yRange().upper)));
    QVERIFY(yRange().contains(2));
}

void TestPlotPanel::farMaxIsAnEdgeMarkerNotAFlattenedPlot()
{
    // Given seq_len (5, 1, 1, 1, 3, 1) with max = 512
    QCOMPARE(m_document->edit(QStringLiteral("max"), [](ConstraintSet &s) { return s.setRange(QStringLiteral("seq_len"), 1, 512); }),
             QString());
    m_plot->showDim(QStringLiteral("seq_len"));
    QCOMPARE(m_plot->band()->second, 512.0);
    // Then the values fill at least a third of the height, 512 is out of view
    QVERIFY(yRange().upper < 512);
    QVERIFY2((5.0 - 1.0) / yRange().size() >= 1.0 / 3.0, qPrintable(QString::number(yRange().size())));
    // and an arrow at the top edge says where it is
    QCOMPARE(m_plot->edgeMarkers(), QStringList{QStringLiteral("max 512 ↑")});
    QCOMPARE(m_plot->title(), QStringLiteral("input_ids dim 1 — Dim seq_len [1, 512]"));
    // Without a max the arrow goes away
    QCOMPARE(m_document->edit(QStringLiteral("max"), [](ConstraintSet &s) { return s.setRange(QStringLiteral("seq_len"), 1, std::nullopt); }),
             QString());
    QVERIFY(m_plot->edgeMarkers().isEmpty());
}

void TestPlotPanel::resetViewShowsEveryMarkerWhole()
{
    m_plot->showDim(QStringLiteral("past_len"));
    QCustomPlot *plot = m_plot->plot();
    // Given a view zoomed and panned away from the values
    plot->xAxis->setRange(10, 20);
    plot->yAxis->setRange(-100, -50);
    plot->replot();
    // When Reset view is clicked
    auto *reset = m_plot->findChild<QToolButton *>(QStringLiteral("plotResetView"));
    QVERIFY(reset);
    QTest::mouseClick(reset, Qt::LeftButton);
    plot->replot();
    // Then every marker (7 px around its point) is inside the plot area, none on its edge
    const QRect area = plot->axisRect()->rect();
    for (const QPointF &p : m_plot->points()) {
        const QPointF px(plot->xAxis->coordToPixel(p.x()), plot->yAxis->coordToPixel(p.y()));
        QVERIFY2(px.x() - 7 >= area.left() && px.x() + 7 <= area.right() && px.y() - 7 >= area.top() && px.y() + 7 <= area.bottom(),
                 qPrintable(QStringLiteral("call %1 at (%2, %3) in %4,%5 %6x%7")
                                .arg(p.x()).arg(px.x()).arg(px.y()).arg(area.x()).arg(area.y()).arg(area.width()).arg(area.height())));
    }
}

void TestPlotPanel::hoverShowsCallAndValue()
{
    m_plot->showDim(QStringLiteral("seq_len"));
    QCustomPlot *plot = m_plot->plot();
    plot->replot();
    // When the mouse rests near call 4's point (seq_len = 3)
    const QPointF point = m_plot->points().at(4);
    const QPoint px(int(plot->xAxis->coordToPixel(point.x())) + 3, int(plot->yAxis->coordToPixel(point.y())) - 2);
    QTest::mouseMove(plot, px);
    // Then its call and value are shown
    QTRY_COMPARE(m_plot->hoverText(), QStringLiteral("call 4: seq_len = 3"));
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), QStringLiteral("call 4: seq_len = 3"));
    // and away from every point nothing is
    QTest::mouseMove(plot, plot->axisRect()->rect().topLeft() + QPoint(2, 2));
    QTRY_COMPARE(m_plot->hoverText(), QString());
    // nor once the mouse has left the plot
    QTest::mouseMove(plot, px);
    QTRY_VERIFY(!m_plot->hoverText().isEmpty());
    QEvent leave(QEvent::Leave);
    QCoreApplication::sendEvent(plot, &leave);
    QCOMPARE(m_plot->hoverText(), QString());
    QTRY_VERIFY(!QToolTip::isVisible());
}

void TestPlotPanel::savedPngCarriesTheTitleAndIsConfirmed()
{
    m_plot->showDim(QStringLiteral("seq_len"));
    const QString path = m_dir.filePath(QStringLiteral("seq_len.png"));
    // When Save… is chosen and a file name given
    const int answered = test::answerFileDialog(m_plot->findChild<QAction *>(QStringLiteral("actionSavePlot")), path);
    QVERIFY(answered > 0 && answered <= 250);
    // Then the PNG exists, carries the title (drawn and in its metadata)
    QImage image(path);
    QVERIFY2(!image.isNull(), qPrintable(path));
    QCOMPARE(image.text(QStringLiteral("Title")), QStringLiteral("input_ids dim 1 — Dim seq_len [1, ∞]"));
    // the title line: text-coloured pixels across the middle of the top rows, where
    // the plot itself draws nothing
    const QColor text = m_plot->palette().color(QPalette::Text);
    int titlePixels = 0;
    for (int y = 0; y < 16; ++y)
        for (int x = image.width() / 4; x < image.width() * 3 / 4; ++x)
            titlePixels += contrast(image.pixelColor(x, y), text) < 3.0;
    QVERIFY2(titlePixels > 20, qPrintable(QString::number(titlePixels)));
    // and the panel confirms, naming the file
    auto *status = m_plot->findChild<QLabel *>(QStringLiteral("plotSaveStatus"));
    QVERIFY(status && status->isVisible());
    QCOMPARE(status->text(), QStringLiteral("Saved %1").arg(QDir::toNativeSeparators(path)));
    // The panel itself shows the plot without the title row again
    QCOMPARE(m_plot->plot()->plotLayout()->rowCount(), 1);
}

void TestPlotPanel::savedPdfCarriesTheTitle()
{
    m_plot->showDim(QStringLiteral("past_len"));
    const QString path = m_dir.filePath(QStringLiteral("past_len.pdf"));
    QString error;
    QVERIFY2(m_plot->saveTo(path, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray pdf = file.readAll();
    QVERIFY(pdf.startsWith("%PDF"));
    // The document title, as PDF writes text strings: UTF-16BE with a byte order mark.
    const QString title = m_plot->title();
    QVERIFY(title.contains(QLatin1String("past_len")));
    QByteArray utf16("\xfe\xff", 2);
    for (QChar c : title)
        utf16.append(char(c.unicode() >> 8)).append(char(c.unicode() & 0xff));
    QVERIFY2(pdf.contains(utf16) || pdf.contains(utf16.toHex()) || pdf.contains(utf16.toHex().toUpper()), "no /Title");
}

void TestPlotPanel::saveErrorNamesTheFile()
{
    m_plot->showDim(QStringLiteral("seq_len"));
    const QString missing = m_dir.filePath(QStringLiteral("no-such-folder/plot.png"));
    QString error;
    QVERIFY(!m_plot->saveTo(missing, &error));
    QVERIFY2(error.contains(QDir::toNativeSeparators(missing)), qPrintable(error));
    auto *status = m_plot->findChild<QLabel *>(QStringLiteral("plotSaveStatus"));
    QVERIFY(status->isVisible());
    QCOMPARE(status->text(), error);
    // An unknown format writes nothing, and says which endings work
    const QString bmp = m_dir.filePath(QStringLiteral("plot.bmpx"));
    QVERIFY(!m_plot->saveTo(bmp, &error));
    QVERIFY2(error.contains(QLatin1String(".png")) && error.contains(QDir::toNativeSeparators(bmp)), qPrintable(error));
    QVERIFY(!QFile::exists(bmp));
}

void TestPlotPanel::themeSwitchRecoloursApplicationAndPlot()
{
    m_plot->showDim(QStringLiteral("seq_len"));
    QCustomPlot *plot = m_plot->plot();
    // When the dark theme is applied
    ThemeApplier::apply(Theme::Dark);
    // Then the application's palette is dark, and the plot's background and axes follow
    // (windows get the new palette through a posted event)
    QVERIFY(QApplication::palette().color(QPalette::Window).lightnessF() < 0.3);
    QCOMPARE(QApplication::style()->name().toLower(), QStringLiteral("fusion"));
    QTRY_COMPARE(backgroundOf(plot), QApplication::palette().color(QPalette::Base));
    QCOMPARE(plot->xAxis->tickLabelColor(), QApplication::palette().color(QPalette::Text));
    QCOMPARE(plot->yAxis->basePen().color(), QApplication::palette().color(QPalette::Text));
    QVERIFY(contrast(plot->graph(0)->pen().color(), backgroundOf(plot)) >= 3.0);
    // Light: a light palette whatever the platform's
    ThemeApplier::apply(Theme::Light);
    QVERIFY(QApplication::palette().color(QPalette::Window).lightnessF() > 0.7);
    QTRY_COMPARE(backgroundOf(plot), QApplication::palette().color(QPalette::Base));
    QCOMPARE(plot->xAxis->labelColor(), QApplication::palette().color(QPalette::Text));
    // System: the platform's palette again
    ThemeApplier::apply(Theme::Dark);
    ThemeApplier::apply(Theme::System);
    for (QPalette::ColorRole role : {QPalette::Window, QPalette::WindowText, QPalette::Base, QPalette::Text, QPalette::Highlight})
        QCOMPARE(QApplication::palette().color(role), m_platformPalette.color(role));
    QTRY_COMPARE(backgroundOf(plot), m_platformPalette.color(QPalette::Base));
}

void TestPlotPanel::darkPaletteIsReadable()
{
    const QPalette dark = ThemeApplier::darkPalette();
    QVERIFY(contrast(dark.color(QPalette::Text), dark.color(QPalette::Base)) >= 7.0);
    QVERIFY(contrast(dark.color(QPalette::WindowText), dark.color(QPalette::Window)) >= 7.0);
    QVERIFY(contrast(dark.color(QPalette::ButtonText), dark.color(QPalette::Button)) >= 7.0);
    QVERIFY(contrast(dark.color(QPalette::HighlightedText), dark.color(QPalette::Highlight)) >= 3.0);
    QVERIFY(contrast(dark.color(QPalette::Link), dark.color(QPalette::Base)) >= 4.5);
    QVERIFY(contrast(dark.color(QPalette::Disabled, QPalette::Text), dark.color(QPalette::Base)) >= 3.0);
}

void TestPlotPanel::dimColoursReadInTheDarkTheme()
{
    // The Dim palette's purple, blue and brown read poorly on the dark base (< 4:1)
    const QColor base = ThemeApplier::darkPalette().color(QPalette::Base);
    for (const QColor &dimColour : {QColor(0x75, 0x70, 0xb3), QColor(0x98, 0x4e, 0xa3), QColor(0x37, 0x7e, 0xb8), QColor(0xa6, 0x76, 0x1d)}) {
        const QColor shown = DimColours::readableOn(dimColour, base);
        QVERIFY2(contrast(shown, base) >= 4.5, qPrintable(dimColour.name()));
        // the same hue, only lighter
        QVERIFY(qAbs(shown.hslHue() - dimColour.hslHue()) <= 3);
        QVERIFY(shown.lightness() > dimColour.lightness());
    }
    // On a light background the palette stays as chosen, as does a colour that reads
    const QColor light = QApplication::style()->standardPalette().color(QPalette::Base);
    QCOMPARE(DimColours::readableOn(QColor(0x75, 0x70, 0xb3), light), QColor(0x75, 0x70, 0xb3));
    QCOMPARE(DimColours::readableOn(QColor(0xe7, 0x29, 0x8a).lighter(160), base), QColor(0xe7, 0x29, 0x8a).lighter(160));
    // The Dims table's status warnings read in the dark theme too (the demo's 0/1 risks).
    ThemeApplier::apply(Theme::Dark);
    loadDemo();
    DimsModel dims(m_document.get());
    int risks = 0;
    for (int r = 0; r < dims.rowCount(); ++r) {
        const QVariant brush = dims.index(r, DimsModel::StatusColumn).data(Qt::ForegroundRole);
        if (!brush.isValid())
            continue;
        ++risks;
        const QColor shown = brush.value<QBrush>().color();
        QVERIFY2(contrast(shown, QApplication::palette().color(QPalette::Base)) >= 4.5, qPrintable(shown.name()));
    }
    QVERIFY(risks > 0);
}

void TestPlotPanel::preferencesThemeAppliesAtOnceAndCancelRestores()
{
    const QColor platformWindow = QApplication::palette().color(QPalette::Window);
    {
        PreferencesDialog dialog;
        dialog.load();
        auto *choice = dialog.findChild<QComboBox *>(QStringLiteral("themeChoice"));
        QVERIFY(choice);
        QCOMPARE(dialog.theme(), Theme::System);
        // Picking Dark shows it at once, in the plot too
        choice->setCurrentIndex(choice->findData(int(Theme::Dark)));
        QVERIFY(QApplication::palette().color(QPalette::Window).lightnessF() < 0.3);
        QTRY_COMPARE(backgroundOf(m_plot->plot()), QApplication::palette().color(QPalette::Base));
        // Cancel puts the platform's back and saves nothing
        dialog.reject();
        QCOMPARE(QApplication::palette().color(QPalette::Window), platformWindow);
        QVERIFY(!QSettings().contains(settings::ColourTheme));
    }
    PreferencesDialog dialog;
    dialog.load();
    dialog.setTheme(Theme::Dark);
    dialog.store(); // what MainWindow does on OK
    QCOMPARE(QSettings().value(settings::ColourTheme).toString(), QStringLiteral("dark"));
    QVERIFY(QApplication::palette().color(QPalette::Window).lightnessF() < 0.3);
    PreferencesDialog reopened;
    reopened.load();
    QCOMPARE(reopened.theme(), Theme::Dark);
}

void TestPlotPanel::preferencesShowEveryLabelWhole()
{
    // Given the environment text a worker reports on a machine without CUDA
    PreferencesDialog dialog;
    dialog.load();
    dialog.setEnvironmentDescription(
        QStringLiteral("Python 3.11.2 (/usr/lib/dimscope/runtime/bin/python3), torch 2.6.0+cpu, CUDA: not available "
                       "(torch was built without CUDA support; install a CUDA build of torch to export on a GPU)"));
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    auto everyLabelFits = [&dialog]() -> QString {
        for (QLabel *label : dialog.findChildren<QLabel *>()) {
            if (!label->isVisible())
                continue;
            const bool fits = label->wordWrap() ? label->heightForWidth(label->width()) <= label->height()
                                                : label->sizeHint().width() <= label->width() && label->sizeHint().height() <= label->height();
            if (!fits)
                return QStringLiteral("'%1' cut: %2x%3").arg(label->text()).arg(label->width()).arg(label->height());
        }
        auto *python = dialog.findChild<QLineEdit *>(QStringLiteral("pythonInterpreter"));
        if (python->fontMetrics().horizontalAdvance(python->placeholderText()) > python->width())
            return QStringLiteral("the interpreter's placeholder is cut");
        return {};
    };
    // Then every label shows all its text at the default size (520x130 cut the CUDA line)
    QCOMPARE(everyLabelFits(), QString());
    // and still when the worker reports a longer text while the dialog is open
    dialog.setEnvironmentDescription(dialog.findChild<QLabel *>(QStringLiteral("pythonEnvironment"))->text().repeated(2));
    QTRY_COMPARE(everyLabelFits(), QString());
}

DIMSCOPE_TEST_MAIN(TestPlotPanel)
// Sizes and calls are whole numbers: the size axis has no tick between them (issue 28
// problem 10: batch, 2 in every call, read 1.8, 1.9, 2, 2.1).
void TestPlotPanel::sizeTicksAreWholeNumbers()
{
    for (const QString &dim : {QStringLiteral("batch"), QStringLiteral("seq_len"), QStringLiteral("past_len")}) {
        m_plot->showDim(dim);
        m_plot->plot()->replot();
        const QVector<double> ticks = m_plot->plot()->yAxis->tickVector();
        QVERIFY2(!ticks.isEmpty(), qPrintable(dim));
        for (double tick : ticks)
            QVERIFY2(tick == std::round(tick), qPrintable(QStringLiteral("%1: tick %2").arg(dim).arg(tick)));
        for (const QString &label : m_plot->plot()->yAxis->tickVectorLabels())
            QVERIFY2(!label.contains(QLatin1Char('.')), qPrintable(QStringLiteral("%1: label %2").arg(dim, label)));
    }
}

// A call the leaf is absent from breaks the line there (issue 28 problem 10: the line
// ran from call 0 to call 2 as if call 1 had a size between).
void TestPlotPanel::callWithoutTheLeafIsAGap()
{
    const Capture capture = test::makeCapture(QStringLiteral(
        "input_ids=2x3:i64 pixel_values=2x3 | input_ids=2x4:i64 pixel_values=- | input_ids=2x5:i64 pixel_values=2x7"));
    m_document->setCapture(QStringLiteral("gap.safetensors"), capture, ShapeInference::infer(capture));
    m_plot->showNode(m_document->loaded()->tree.nodeForPath(QStringLiteral("pixel_values")));
    m_plot->showDimension(1);
    QCOMPARE(m_plot->points(), (QVector<QPointF>{{0, 3}, {2, 7}}));
    QSharedPointer<QCPGraphDataContainer> data = m_plot->plot()->graph(0)->data();
    QCOMPARE(data->size(), 3);
    QCOMPARE(data->at(0)->value, 3.0);
    QCOMPARE(data->at(1)->key, 1.0);
    QVERIFY(std::isnan(data->at(1)->value));
    QCOMPARE(data->at(2)->value, 7.0);
    // a leaf in every call has no gap
    m_plot->showNode(m_document->loaded()->tree.nodeForPath(QStringLiteral("input_ids")));
    m_plot->showDimension(1);
    QCOMPARE(m_plot->plot()->graph(0)->data()->size(), 3);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(m_plot->plot()->graph(0)->data()->at(i)->value, 3.0 + i);
}

// Save… opens with a file name: the Dim's, or the leaf's and dim's (issue 28 problem 10:
// the dialog opened with none).
void TestPlotPanel::saveProposesAFileNamedAfterThePlot()
{
    const QString folder = m_dir.filePath(QStringLiteral("proposed"));
    QVERIFY(QDir().mkpath(folder));
    QSettings().setValue(settings::LastPlotFolder, folder);
    const auto proposed = [this] {
        QString selected;
        QTimer poll;
        poll.setInterval(20);
        connect(&poll, &QTimer::timeout, this, [&] {
            if (auto *dialog = qobject_cast<QFileDialog *>(QApplication::activeModalWidget())) {
                selected = dialog->selectedFiles().value(0);
                dialog->reject();
            }
        });
        poll.start();
        QTimer::singleShot(5000, QApplication::activeModalWidget(), [] {
            if (QWidget *w = QApplication::activeModalWidget())
                w->close();
        });
        m_plot->findChild<QAction *>(QStringLiteral("actionSavePlot"))->trigger();
        return selected;
    };
    m_plot->showDim(QStringLiteral("seq_len"));
    QCOMPARE(proposed(), QDir(folder).filePath(QStringLiteral("seq_len.png")));
    m_plot->showNode(m_document->loaded()->tree.nodeForPath(QStringLiteral("past_key_values.key_cache[0]")));
    m_plot->showDimension(2);
    QCOMPARE(m_plot->suggestedFileName(), QStringLiteral("past_key_values.key_cache_0-dim2.png"));
    QCOMPARE(proposed(), QDir(folder).filePath(QStringLiteral("past_key_values.key_cache_0-dim2.png")));
    // nothing was written: the dialog was cancelled
    QVERIFY(QDir(folder).isEmpty());
}

#include "tst_plotpanel.moc"
