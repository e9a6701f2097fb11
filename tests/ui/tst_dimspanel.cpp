// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture/capturereader.h"
#include "capturebuilder.h"
#include "exportoptionsdialog.h"
#include "export/examplecalladvice.h"
#include "export/exporthints.h"
#include "models/dimcolours.h"
#include "deriveddimdialog.h"
#include "dimspanel.h"
#include "models/dimsmodel.h"
#include "project/projectfile.h"
#include "document/projectdocument.h"
#include "inference/shapeinference.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QSpinBox>
#include <QStyle>
#include <QRegularExpression>
#include <QTableView>
#include <QTreeWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <QVBoxLayout>
#include "deterministictestmain.h"

#include <array>
#include <cmath>

using namespace dimscope;

// The Dims panel and its dialogs on the bundled demo capture (inferred Dims seq_len,
// total_len, past_len), driven by objectName and key events (issue 13: Delete, Tab,
// the filter, clipped labels, the Merge wording, notes after a rename).
class TestDimsPanel : public QObject
{
    Q_OBJECT
private slots:
    void noteFollowsRenameAcrossSaveAndReopen();
    void deleteAndBackspaceDeleteTheSelectedDim();
    void tabReachesTheTableAndShiftTabLeavesIt();
    void filterHidesRowsAndCountsThem();
    void renameErrorIsShownInFull();
    void derivedDimDialogLabelsFit();
    void mergeDialogSaysWhatHappens();
    void mergeDialogShowsItsWholeTitle();
    void exportOptionsShowsTheExampleCallWhole();
    void autoDimHasARowWithTheWarningOfAnalyze();
    void autoDimCountsForTheExampleCallAdvice();
    void selectionSurvivesRenameAndMerge();

private:
    // A generate() capture as a Llama's: call 0 the prefill (5 tokens, an empty cache),
    // calls 1-7 decode one token each. The example call is a decode call, so the prompt
    // length (input_ids / position_ids dim 1: 5, then 1) is proposed as Dim.AUTO.
    static Capture llamaLikeCapture();
    static QString demoCapture() { return QStringLiteral(DIMSCOPE_SOURCE_DIR "/resources/demo/demo-capture.safetensors"); }
    // The demo capture with the inferred proposal (or `saved`) in `document`.
    static void load(ProjectDocument &document, std::optional<ConstraintSet> saved = {});
    static QString statusTip(DimsModel *model, const QString &dim)
    {
        return model->index(model->rowOf(dim), DimsModel::StatusColumn).data(Qt::ToolTipRole).toString();
    }
    // A label's whole text is visible: its width holds the text (or it wraps) and it
    // is tall enough for the lines at that width, inside its window.
    static bool labelFits(const QLabel *label, QString *why);
};

void TestDimsPanel::load(ProjectDocument &document, std::optional<ConstraintSet> saved)
{
    QString error;
    const std::optional<Capture> capture = CaptureReader::open(demoCapture(), &error);
    QVERIFY2(capture, qPrintable(error));
    document.setCapture(demoCapture(), *capture, ShapeInference::infer(*capture), std::move(saved));
}

bool TestDimsPanel::labelFits(const QLabel *label, QString *why)
{
    const QRect inWindow(label->mapTo(label->window(), QPoint(0, 0)), label->size());
    if (!label->window()->rect().contains(inWindow)) {
        *why = QStringLiteral("%1 lies outside its window").arg(label->objectName());
        return false;
    }
    const int needed = label->wordWrap() ? label->heightForWidth(label->width()) : label->sizeHint().height();
    if (label->height() < needed) {
        *why = QStringLiteral("%1 is %2 px high, its text needs %3: %4")
                   .arg(label->objectName()).arg(label->height()).arg(needed).arg(label->text());
        return false;
    }
    if (!label->wordWrap() && label->width() < label->sizeHint().width()) {
        *why = QStringLiteral("%1 is %2 px wide, its text needs %3: %4")
                   .arg(label->objectName()).arg(label->width()).arg(label->sizeHint().width()).arg(label->text());
        return false;
    }
    return true;
}

void TestDimsPanel::noteFollowsRenameAcrossSaveAndReopen()
{
    // Given the demo in a Dims panel; total_len's status carries the sum note
    ProjectDocument document;
    load(document);
    DimsPanel panel(&document);
    QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(statusTip(panel.model(), QStringLiteral("total_len")).contains(QLatin1String("'total_len' = 'seq_len' + 'past_len'")));

    // When seq_len is renamed in the table
    QVERIFY(panel.model()->setData(panel.model()->index(panel.model()->rowOf(QStringLiteral("seq_len")), DimsModel::NameColumn),
                                   QStringLiteral("q_len")));
    // Then the note names q_len at once
    QString tip = statusTip(panel.model(), QStringLiteral("total_len"));
    QVERIFY2(tip.contains(QLatin1String("'total_len' = 'q_len' + 'past_len'")), qPrintable(tip));
    QVERIFY(!tip.contains(QLatin1String("seq_len")));

    // and after saving, and reopening the project into another document
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("renamed.dimscope"));
    QString error;
    QVERIFY2(document.save(path, &error), qPrintable(error));
    const std::optional<ProjectFile> project = ProjectFile::read(path, &error);
    QVERIFY2(project && project->constraints, qPrintable(error));
    ProjectDocument reopened;
    load(reopened, project->constraints);
    DimsPanel again(&reopened);
    tip = statusTip(again.model(), QStringLiteral("total_len"));
    QVERIFY2(tip.contains(QLatin1String("'total_len' = 'q_len' + 'past_len'")), qPrintable(tip));
    QVERIFY(!tip.contains(QLatin1String("seq_len")));
}

void TestDimsPanel::deleteAndBackspaceDeleteTheSelectedDim()
{
    // Given the panel shown with past_len selected and the table focused
    ProjectDocument document;
    load(document);
    DimsPanel panel(&document);
    panel.resize(600, 300);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.activateWindow();
    panel.selectDim(QStringLiteral("past_len"));
    panel.table()->setFocus();
    QVERIFY(panel.table()->hasFocus());
    const int steps = document.undoStack()->count();

    // When Delete is pressed
    QTest::keyClick(panel.table(), Qt::Key_Delete);
    // Then past_len is gone in one undo step named after it
    QVERIFY(!document.constraints().dim(QStringLiteral("past_len")));
    QCOMPARE(document.undoStack()->count(), steps + 1);
    QCOMPARE(document.undoStack()->undoText(), QStringLiteral("Delete Dim past_len"));
    document.undoStack()->undo();
    QVERIFY(document.constraints().dim(QStringLiteral("past_len")));

    // And Backspace does the same to the selected Dim
    panel.selectDim(QStringLiteral("seq_len"));
    panel.table()->setFocus();
    QTest::keyClick(panel.table(), Qt::Key_Backspace);
    QVERIFY(!document.constraints().dim(QStringLiteral("seq_len")));

    // But Backspace in the filter edits the filter, it deletes no Dim
    const int dims = document.constraints().dims().size();
    panel.filterEdit()->setFocus();
    QTest::keyClicks(panel.filterEdit(), QStringLiteral("ba"));
    QTest::keyClick(panel.filterEdit(), Qt::Key_Backspace);
    QCOMPARE(panel.filterEdit()->text(), QStringLiteral("b"));
    QCOMPARE(document.constraints().dims().size(), dims);
}

void TestDimsPanel::tabReachesTheTableAndShiftTabLeavesIt()
{
    // Given a window: a line edit, the Dims panel, another line edit
    ProjectDocument document;
    load(document);
    QWidget window;
    auto *before = new QLineEdit(&window);
    before->setObjectName(QStringLiteral("before"));
    auto *panel = new DimsPanel(&document, &window);
    auto *after = new QLineEdit(&window);
    after->setObjectName(QStringLiteral("after"));
    auto *layout = new QVBoxLayout(&window);
    layout->addWidget(before);
    layout->addWidget(panel);
    layout->addWidget(after);
    window.resize(600, 400);
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    before->setFocus();

    // When Tab is pressed from the first line edit
    QWidget *focus = nullptr;
    for (int i = 0; i < 5 && focus != panel->table(); ++i) {
        QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
        focus = QApplication::focusWidget();
    }
    // Then the Dims table gets the focus
    QCOMPARE(focus, panel->table());
    // and Tab leaves it for the next widget, not the next cell
    QTest::keyClick(panel->table(), Qt::Key_Tab);
    QCOMPARE(QApplication::focusWidget(), after);
    // and Shift+Tab comes back into the table and goes on out of it
    QTest::keyClick(after, Qt::Key_Backtab, Qt::ShiftModifier);
    QCOMPARE(QApplication::focusWidget(), panel->table());
    QTest::keyClick(panel->table(), Qt::Key_Backtab, Qt::ShiftModifier);
    QVERIFY(QApplication::focusWidget() != panel->table());
    QVERIFY(!panel->table()->isAncestorOf(QApplication::focusWidget()));
}

void TestDimsPanel::filterHidesRowsAndCountsThem()
{
    // Given the panel with the demo's three inferred Dims
    ProjectDocument document;
    load(document);
    DimsPanel panel(&document);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto *filter = panel.findChild<QLineEdit *>(QStringLiteral("dimsFilter"));
    auto *count = panel.findChild<QLabel *>(QStringLiteral("dimsFilterCount"));
    QVERIFY(filter && count);
    QVERIFY(!count->isVisible());

    QCOMPARE(panel.model()->rowCount(), 3);
    // When "AL_LEN" is typed (any case)
    filter->setFocus();
    QTest::keyClicks(filter, QStringLiteral("AL_LEN"));
    // Then only total_len is shown, and the count says so
    QCOMPARE(count->text(), QStringLiteral("1 of 3 shown"));
    QVERIFY(count->isVisible());
    QVERIFY(panel.table()->isRowHidden(panel.model()->rowOf(QStringLiteral("seq_len"))));
    QVERIFY(panel.table()->isRowHidden(panel.model()->rowOf(QStringLiteral("past_len"))));
    QVERIFY(!panel.table()->isRowHidden(panel.model()->rowOf(QStringLiteral("total_len"))));

    // When nothing matches, the count says that
    filter->clear();
    QTest::keyClicks(filter, QStringLiteral("xyz"));
    QCOMPARE(count->text(), QStringLiteral("No Dim matches “xyz”"));

    // When Escape is pressed, the filter is cleared and every Dim is back
    QTest::keyClick(filter, Qt::Key_Escape);
    QVERIFY(filter->text().isEmpty());
    QVERIFY(!count->isVisible());
    for (int r = 0; r < panel.model()->rowCount(); ++r)
        QVERIFY(!panel.table()->isRowHidden(r));
}

void TestDimsPanel::renameErrorIsShownInFull()
{
    // Given the panel in a dock of the size the issue saw (about 430 x 240)
    ProjectDocument document;
    load(document);
    QMainWindow window;
    auto *dock = new QDockWidget(QStringLiteral("Dims"), &window);
    auto *panel = new DimsPanel(&document, dock);
    dock->setWidget(panel);
    window.addDockWidget(Qt::RightDockWidgetArea, dock);
    window.setCentralWidget(new QWidget(&window));
    window.resize(900, 500);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.resizeDocks({dock}, {430}, Qt::Horizontal);

    // When seq_len is renamed to a name that is taken, and then to an invalid one
    QVERIFY(!panel->model()->setData(panel->model()->index(panel->model()->rowOf(QStringLiteral("seq_len")), DimsModel::NameColumn),
                                     QStringLiteral("past_len")));
    QCoreApplication::processEvents();
    auto *problem = panel->findChild<QLabel *>(QStringLiteral("dimsProblem"));
    QVERIFY(problem && problem->isVisible());
    QVERIFY(!problem->text().isEmpty());
    // Then the whole reason is visible
    QString why;
    QVERIFY2(labelFits(problem, &why), qPrintable(why));
    QVERIFY(!panel->model()->setData(panel->model()->index(panel->model()->rowOf(QStringLiteral("seq_len")), DimsModel::NameColumn),
                                     QStringLiteral("9 is not a name, and this text is long so that it wraps in the dock")));
    QCoreApplication::processEvents();
    QVERIFY2(labelFits(problem, &why), qPrintable(why));
    // also when the window is made as low as it goes: the table gives way, not the text
    window.resize(900, 120);
    QCoreApplication::processEvents();
    QVERIFY2(labelFits(problem, &why), qPrintable(why));
    // and it is inside the visible part of the dock
    QVERIFY(panel->rect().contains(QRect(problem->mapTo(panel, QPoint(0, 0)), problem->size())));
}

void TestDimsPanel::derivedDimDialogLabelsFit()
{
    // Given the Derived Dim dialog for a cache leaf (a long key path) at its default size
    ProjectDocument document;
    load(document);
    DerivedDimDialog dialog(&document, QStringLiteral("past_key_values.value_cache[1]"), 2);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    // The title is short enough for any window manager; the leaf is said inside
    QCOMPARE(dialog.windowTitle(), QStringLiteral("Derived Dim"));
    auto *about = dialog.findChild<QLabel *>(QStringLiteral("derivedDimFor"));
    QVERIFY(about && about->text().contains(QLatin1String("past_key_values.value_cache[1] dim 2")));

    // When a multiplier that misfits every call is chosen
    auto *a = dialog.findChildren<QSpinBox *>().value(0);
    QVERIFY(a);
    a->setValue(7);
    QCoreApplication::processEvents();
    auto *fit = dialog.findChild<QLabel *>(QStringLiteral("derivedDimFit"));
    QVERIFY(fit && fit->text().startsWith(QLatin1String("Does not fit")));
    // Then every label's whole text is visible
    for (const QLabel *label : dialog.findChildren<QLabel *>()) {
        if (!label->isVisible() || label->text().isEmpty())
            continue;
        QString why;
        QVERIFY2(labelFits(label, &why), qPrintable(why));
    }
}

void TestDimsPanel::mergeDialogSaysWhatHappens()
{
    // Given the panel with total_len selected
    ProjectDocument document;
    load(document);
    DimsPanel panel(&document);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.selectDim(QStringLiteral("total_len"));

    // When Merge… is triggered and past_len chosen
    QString label, consequence;
    bool seen = false;
    QTimer::singleShot(0, &panel, [&] {
        auto *dialog = panel.findChild<QInputDialog *>(QStringLiteral("mergeDimsDialog"));
        if (!dialog)
            return;
        seen = true;
        dialog->setTextValue(QStringLiteral("past_len"));
        QCoreApplication::processEvents(); // the new text laid out
        label = dialog->labelText();
        const QLabel *c = dialog->findChild<QLabel *>(QStringLiteral("mergeConsequence"));
        consequence = c ? c->text() : QString();
        QString why;
        if (c && !labelFits(c, &why))
            consequence = why;
        dialog->accept();
    });
    panel.mergeAction()->trigger();
    QVERIFY(seen);
    // Then the dialog said which Dim goes into which, and what that does
    QCOMPARE(label, QStringLiteral("Merge this Dim into 'total_len':"));
    QCOMPARE(consequence, QStringLiteral("Every dimension that uses 'past_len' will use 'total_len' instead, and 'past_len' is "
                                         "deleted. 'total_len' keeps its name and range; Dims derived from 'past_len' are "
                                         "derived from 'total_len'. Undo restores both."));
    // and did it
    QVERIFY(!document.constraints().dim(QStringLiteral("past_len")));
    QCOMPARE(document.constraints().assignment(QStringLiteral("past_key_values.key_cache[0]"), 2).dim, QStringLiteral("total_len"));
}

// Issue 28 problem 10: the Merge dialog opened 208 px wide, so the window manager cut
// its title "Merge into NAME". It is wide enough for the title in a title bar's bold
// font beside the frame's icon and buttons, and for its label and choice.
void TestDimsPanel::mergeDialogShowsItsWholeTitle()
{
    // Given a Dim with a T5-like long name, selected alone
    ProjectDocument document;
    load(document);
    DimsPanel panel(&document);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const QString longName = QStringLiteral("encoder_attention_mask_sequence_length");
    QCOMPARE(panel.model()->renameDim(QStringLiteral("total_len"), longName), QString());
    panel.selectDim(longName);

    // When Merge… asks which Dim to merge into it
    QString title, why;
    int width = 0;
    QTimer::singleShot(0, &panel, [&] {
        auto *dialog = panel.findChild<QInputDialog *>(QStringLiteral("mergeDimsDialog"));
        if (!dialog)
            return;
        QCoreApplication::processEvents();
        title = dialog->windowTitle();
        width = dialog->width();
        const auto *label = dialog->findChild<QLabel *>();
        if (label && label->isVisible() && !labelFits(label, &why))
            width = -1;
        dialog->reject();
    });
    panel.mergeAction()->trigger();

    // Then its title and label are whole
    QCOMPARE(title, QStringLiteral("Merge into %1").arg(longName));
    QVERIFY2(width >= 0, qPrintable(why));
    QFont bold = panel.font();
    bold.setBold(true);
    const int titleBar = QFontMetrics(bold).horizontalAdvance(title) + 4 * 24; // icon, minimize, maximize, close
    QVERIFY2(width >= titleBar, qPrintable(QStringLiteral("%1 px wide, its title bar needs %2").arg(width).arg(titleBar)));
}

// Issue 28 problem 10: the example call's row ("Call 4 (example)", bold) was cut to
// "Cal…": the Call column was sized before the example was marked.
void TestDimsPanel::exportOptionsShowsTheExampleCallWhole()
{
    ProjectDocument document;
    load(document);
    ExportOptionsDialog dialog(&document);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    auto *calls = dialog.findChild<QTreeWidget *>(QStringLiteral("exampleCalls"));
    auto *example = dialog.findChild<QComboBox *>(QStringLiteral("exampleCall"));
    QVERIFY(calls && example);
    // A cell's text has the style's focus-frame margin on each side.
    const int margins = 2 * (calls->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, calls) + 1);
    const auto checkWhole = [calls, margins] {
        for (int i = 0; i < calls->topLevelItemCount(); ++i) {
            const QTreeWidgetItem *item = calls->topLevelItem(i);
            const QRect cell = calls->visualItemRect(item).intersected(
                QRect(calls->header()->sectionViewportPosition(0), 0, calls->columnWidth(0), 1 << 20));
            const int needed = QFontMetrics(item->font(0)).horizontalAdvance(item->text(0)) + margins;
            if (cell.width() < needed)
                return QStringLiteral("'%1' has %2 px, needs %3").arg(item->text(0)).arg(cell.width()).arg(needed);
        }
        return QString();
    };
    QVERIFY(calls->findItems(QStringLiteral("(example)"), Qt::MatchContains).size() == 1);
    QCOMPARE(checkWhole(), QString());
    // Also after another call is chosen as the example
    example->setCurrentIndex(example->count() - 1);
    QVERIFY(calls->topLevelItem(calls->topLevelItemCount() - 1)->text(0).endsWith(QStringLiteral("(example)")));
    QCOMPARE(checkWhole(), QString());
}

Capture TestDimsPanel::llamaLikeCapture()
{
    QStringList calls;
    for (int c = 0; c < 8; ++c) {
        const int seq = c == 0 ? 5 : 1, past = c == 0 ? 0 : 4 + c;
        calls << QStringLiteral("input_ids=2x%1:i64 position_ids=2x%1:i64 attention_mask=2x%2:i64 "
                                "past_key_values=cache(2:2x4x%3x8)")
                     .arg(seq).arg(past + seq).arg(past);
    }
    return test::makeCapture(calls.join(QLatin1Char('|')));
}

namespace {
// The Dim a warning of ShapeInference is about: "Dim 'seq_len' (input_ids dim 1, …) is …".
QString autoDimOfWarning(const QString &warning)
{
    static const QRegularExpression quoted(QStringLiteral("^Dim '([A-Za-z_][A-Za-z0-9_]*)'"));
    return quoted.match(warning).captured(1);
}

// CIE76 distance of two colours in CIELAB (D65): below ~10 two swatches read as one.
double labDistance(const QColor &x, const QColor &y)
{
    const auto lab = [](const QColor &c) {
        const auto lin = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
        const double r = lin(c.redF()), g = lin(c.greenF()), b = lin(c.blueF());
        const double xyz[3] = {(r * 0.4124 + g * 0.3576 + b * 0.1805) / 0.95047, r * 0.2126 + g * 0.7152 + b * 0.0722,
                               (r * 0.0193 + g * 0.1192 + b * 0.9505) / 1.08883};
        double f[3];
        for (int i = 0; i < 3; ++i)
            f[i] = xyz[i] > 0.008856 ? std::cbrt(xyz[i]) : 7.787 * xyz[i] + 16.0 / 116.0;
        return std::array<double, 3>{116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])};
    };
    const auto a = lab(x), b = lab(y);
    return std::hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}
} // namespace

void TestDimsPanel::autoDimHasARowWithTheWarningOfAnalyze()
{
    // Given a Llama-like generate() capture, whose prompt length inference leaves to
    // torch (Dim.AUTO), in a Dims panel
    const Capture capture = llamaLikeCapture();
    const InferenceResult inference = ShapeInference::infer(capture);
    QCOMPARE(inference.constraints.assignment(QStringLiteral("input_ids"), 1).kind, DimAssignment::Kind::Auto);
    // the warning `dimscope-cli analyze` prints about it (the same list of messages)
    QString warning;
    for (const InferenceMessage &m : inference.messages)
        if (m.text.contains(QLatin1String("Dim.AUTO")))
            warning = m.text;
    QVERIFY2(warning.contains(QLatin1String("Capture a call where it is >= 2")), qPrintable(warning));
    ProjectDocument document;
    document.setCapture(QStringLiteral("llama.safetensors"), capture, inference);
    DimsPanel panel(&document);
    QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    DimsModel *model = panel.model();

    // Then the prompt length has a row of its own, under the name the warning gives it
    const QString name = autoDimOfWarning(warning);
    QCOMPARE(name, QStringLiteral("seq_len"));
    const int row = model->rowOf(name);
    QVERIFY2(row >= 0, qPrintable(name));
    QVERIFY(model->index(row, 0).data(DimsModel::IsAutoRole).toBool());
    QVERIFY(model->index(row, DimsModel::StatusColumn).data().toString().startsWith(QLatin1String("auto: torch decides")));
    QCOMPARE(model->index(row, DimsModel::ObservedColumn).data().toString(), QStringLiteral("1..5"));
    QCOMPARE(model->index(row, DimsModel::UsesColumn).data().toInt(), 2); // input_ids and position_ids dim 1
    // with the warning word for word, and the calls it varies in
    const QString tip = model->index(row, DimsModel::StatusColumn).data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(warning), qPrintable(tip));
    QVERIFY2(tip.contains(QLatin1String("Varies in call(s) 1-7")), qPrintable(tip));
    QVERIFY2(tip.contains(QLatin1String("input_ids dim 1, position_ids dim 1")), qPrintable(tip));

    // In a style of its own: a colour far from every Dim's, on light and dark bases
    const QColor autoColour = model->index(row, 0).data(DimsModel::ColourRole).value<QColor>();
    QCOMPARE(autoColour, DimColours::unnamedDynamicColour());
    QVERIFY(model->index(row, 0).data(Qt::FontRole).value<QFont>().italic());
    ConstraintSet many;
    for (int i = 0; i < 12; ++i)
        QCOMPARE(many.addRootDim(QStringLiteral("d%1").arg(i)), QString());
    DimColours palette;
    palette.update(many);
    const QColor dark(0x1e, 0x1e, 0x1e);
    for (int i = 0; i < 12; ++i) {
        const QColor dim = palette.colour(QStringLiteral("d%1").arg(i));
        QVERIFY2(labDistance(autoColour, dim) >= 20, qPrintable(dim.name()));
        QVERIFY2(labDistance(DimColours::readableOn(autoColour, dark), DimColours::readableOn(dim, dark)) >= 20,
                 qPrintable(dim.name()));
    }

    // It is no Dim: selected, nothing renames, deletes or merges it, and it takes no edit
    panel.selectDim(name);
    QVERIFY(panel.currentDim().isEmpty());
    QVERIFY(!panel.renameAction()->isEnabled());
    QVERIFY(!panel.deleteAction()->isEnabled());
    QVERIFY(!model->setData(model->index(row, DimsModel::NameColumn), QStringLiteral("prompt_len")));
    QVERIFY(!(model->flags(model->index(row, DimsModel::MinColumn)) & Qt::ItemIsEditable));

    // And a Dim assigned to those dimensions in the tree ends the row
    QCOMPARE(document.edit(QStringLiteral("name it"),
                           [](ConstraintSet &s) {
                               QString e = s.addRootDim(QStringLiteral("prompt_len"));
                               if (e.isEmpty())
                                   e = s.assign(QStringLiteral("input_ids"), 1, DimAssignment::named(QStringLiteral("prompt_len")));
                               if (e.isEmpty())
                                   e = s.assign(QStringLiteral("position_ids"), 1, DimAssignment::named(QStringLiteral("prompt_len")));
                               return e;
                           }),
             QString());
    QCOMPARE(model->rowOf(name), -1);
    document.undoStack()->undo();
    QVERIFY(model->rowOf(name) >= 0);
}

void TestDimsPanel::autoDimCountsForTheExampleCallAdvice()
{
    // Given the Llama-like capture: call 0 has past_len = 0, the decode calls the prompt
    // length (Dim.AUTO) at 1
    const Capture capture = llamaLikeCapture();
    ProjectDocument document;
    document.setCapture(QStringLiteral("llama.safetensors"), capture, ShapeInference::infer(capture));
    const QString name = QStringLiteral("seq_len");
    const QString autoAtOne = QStringLiteral("%1 (auto) = 1").arg(name);

    // Then Export Options warns on call 1, whose auto dim is 1, as the worker does
    // ("example call 1 has dynamic dims below 2")
    ExportOptionsDialog dialog(&document);
    auto *calls = dialog.findChild<QTreeWidget *>(QStringLiteral("exampleCalls"));
    QVERIFY(calls);
    QTreeWidgetItem *call1 = calls->topLevelItem(1);
    QVERIFY2(call1->text(2).contains(autoAtOne), qPrintable(call1->text(2)));
    QVERIFY(!call1->icon(2).isNull());

    // and after an export traced from call 0 (past_len = 0) the failure page does not
    // advise a call whose auto dim is 1: that export would specialize it in turn
    const ExportHints hints = document.exportHints();
    QVERIFY(hints.calls().at(0).zeroOrOne.contains(QStringLiteral("past_len = 0")));
    const ExampleCallAdvice advice = ExampleCallAdvice::make(hints, 0);
    QVERIFY2(!advice.isValid(), qPrintable(advice.text()));
}

void TestDimsPanel::selectionSurvivesRenameAndMerge()
{
    // Given the demo's panel with seq_len selected
    ProjectDocument document;
    load(document);
    DimsPanel panel(&document);
    QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.selectDim(QStringLiteral("seq_len"));
    QCOMPARE(panel.currentDim(), QStringLiteral("seq_len"));

    // When it is renamed in its cell (as the cell editor commits)
    DimsModel *model = panel.model();
    QVERIFY(model->setData(model->index(model->rowOf(QStringLiteral("seq_len")), DimsModel::NameColumn), QStringLiteral("q_len")));
    // Then the renamed Dim is still the selected one
    QCOMPARE(panel.currentDim(), QStringLiteral("q_len"));
    QCOMPARE(panel.table()->selectionModel()->selectedRows().size(), 1);

    // And when past_len is merged into the selected total_len (two rows selected)
    panel.selectDim(QStringLiteral("past_len"));
    panel.table()->selectionModel()->setCurrentIndex(model->index(model->rowOf(QStringLiteral("total_len")), 0),
                                                     QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QCOMPARE(panel.currentDim(), QStringLiteral("total_len"));
    panel.mergeAction()->trigger();
    QVERIFY(!document.constraints().dim(QStringLiteral("past_len")));
    // Then the Dim merged into stays selected
    QCOMPARE(panel.currentDim(), QStringLiteral("total_len"));
}

QTEST_MAIN(TestDimsPanel)
#include "tst_dimspanel.moc"
