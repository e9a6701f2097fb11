// SPDX-License-Identifier: GPL-3.0-or-later
// The Why panel without torch: torch's shape decisions as the worker sends them
// (docs/worker-protocol.md, "Explanations") in ExplanationsModel (checked by
// QAbstractItemModelTester), the source viewer on a model file the test writes, the
// Dims' tooltips, and the decisions belonging to their document.
#include "capturebuilder.h"
#include "deterministictestmain.h"
#include "dimspanel.h"
#include "explanationspanel.h"
#include "document/exportresults.h"
#include "mainwindow.h"
#include "models/dimsmodel.h"
#include "models/explanationsmodel.h"
#include "models/inputsmodel.h"
#include "inputsview.h"
#include "document/projectdocument.h"
#include "inference/shapeinference.h"
#include "text/sourceexcerpt.h"

#include "export/phasedexportoutcome.h"

#include <QAbstractItemModelTester>
#include <QCheckBox>
#include <QDockWidget>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>
#include <QTreeView>

using namespace dimscope;

namespace {

const char kModel[] = "import torch\n"
                      "\n"
                      "class Model(torch.nn.Module):\n"
                      "    def forward(self, x):\n"
                      "        h = x * 2\n"
                      "        if h.shape[1] == 4:\n"
                      "            return h + 1\n"
                      "        return h\n";

// Two decisions as the worker sends them: seq_len specialized at line 6 of the model
// (reached from forward through a library frame), and a guard on batch with no line.
QVector<ShapeExplanation> decisions(const QString &modelFile)
{
    const QString json = QString::fromUtf8(R"json([
      {"kind": "specialized", "expression": "seq_len == 4", "torch_expression": "Eq(s1, 4)",
       "dims": ["seq_len"], "value": 4, "reason": "range_refined_to_singleton",
       "sources": [{"source": "L['x'].size()[1]", "path": "x", "dim": 1}],
       "location": {"file": "MODEL", "line": 6, "function": "forward", "code": "        if h.shape[1] == 4:"},
       "stack": [{"file": "/usr/lib/python3/dist-packages/torch/nn/modules/module.py", "line": 1775,
                  "function": "_call_impl", "code": "return forward_call(*args, **kwargs)", "library": true},
                 {"file": "MODEL", "line": 6, "function": "forward", "code": "        if h.shape[1] == 4:",
                  "library": false}]},
      {"kind": "guard", "expression": "batch != 1", "torch_expression": "Ne(s0, 1)", "dims": ["batch"],
       "value": null, "reason": null, "sources": [], "location": null, "stack": []}
    ])json").replace(QStringLiteral("MODEL"), modelFile);
    return ShapeExplanation::listFromJson(QJsonDocument::fromJson(json.toUtf8()).array());
}

QString writeModel(const QTemporaryDir &dir)
{
    const QString path = dir.filePath(QStringLiteral("model.py"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(kModel);
    return path;
}

} // namespace

class TestExplanations : public QObject
{
    Q_OBJECT
private slots:
    void modelListsDecisionsWithTheirUserFrames()
    {
        QTemporaryDir dir;
        const QString model = writeModel(dir);
        ExplanationsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setExplanations(decisions(model));
        QCOMPARE(m.rowCount(), 2);
        const QModelIndex first = m.index(0, 0);
        QCOMPARE(first.data().toString(), QStringLiteral("specialized"));
        QCOMPARE(m.index(0, ExplanationsModel::ExpressionColumn).data().toString(), QStringLiteral("seq_len == 4"));
        QCOMPARE(m.index(0, ExplanationsModel::LocationColumn).data().toString(), QStringLiteral("model.py:6"));
        QCOMPARE(m.index(0, ExplanationsModel::CodeColumn).data().toString(), QStringLiteral("if h.shape[1] == 4:"));
        QCOMPARE(first.data(ExplanationsModel::FileRole).toString(), model);
        QCOMPARE(first.data(ExplanationsModel::LineRole).toInt(), 6);
        QVERIFY(first.data(Qt::ToolTipRole).toString().startsWith(model + QStringLiteral(":6: specialized: seq_len == 4")));
        // The frames above the line: the library frame is folded away until asked for
        // (the innermost frame is the row's own line).
        QCOMPARE(m.rowCount(first), 0);
        m.setShowLibraryFrames(true);
        QCOMPARE(m.rowCount(m.index(0, 0)), 1);
        const QModelIndex frame = m.index(0, 0, m.index(0, 0));
        QCOMPARE(frame.data().toString(), QStringLiteral("library"));
        QCOMPARE(frame.siblingAtColumn(ExplanationsModel::ExpressionColumn).data().toString(), QStringLiteral("_call_impl"));
        QCOMPARE(frame.siblingAtColumn(ExplanationsModel::LocationColumn).data().toString(), QStringLiteral("module.py:1775"));
        QCOMPARE(frame.data(ExplanationsModel::LineRole).toInt(), 1775);
        // A decision torch made at the inputs says so.
        QCOMPARE(m.index(1, ExplanationsModel::LocationColumn).data().toString(), QStringLiteral("at the inputs"));
        QCOMPARE(m.rowCount(m.index(1, 0)), 0);
    }

    void dimFilterKeepsTheDecisionsAboutOneDim()
    {
        ExplanationsModel m;
        QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.setExplanations(decisions(QStringLiteral("/nowhere/model.py")));
        m.setDimFilter(QStringLiteral("batch"));
        QCOMPARE(m.rowCount(), 1);
        QCOMPARE(m.index(0, ExplanationsModel::ExpressionColumn).data().toString(), QStringLiteral("batch != 1"));
        QCOMPARE(m.explanationAt(m.index(0, 0))->kind, QStringLiteral("guard"));
        m.setDimFilter(QStringLiteral("nothing"));
        QCOMPARE(m.rowCount(), 0);
        m.setDimFilter(QString());
        QCOMPARE(m.rowCount(), 2);
    }

    void collectTakesEveryAttemptOnce()
    {
        const QVector<ShapeExplanation> all = decisions(QStringLiteral("/m.py"));
        PhasedExportOutcome outcome;
        outcome.firstAttempt.failure.explanations = all; // the user's constraints failed
        ExportedProgram program;
        program.result.explanations = {all.at(1)}; // the same guard again
        outcome.programs << program;
        const QVector<ShapeExplanation> collected = ExplanationsModel::collect(outcome);
        QCOMPARE(collected.size(), 2);
        QCOMPARE(collected.at(0).expression, QStringLiteral("seq_len == 4"));
    }

    void collectTakesTheFixLoopsEarlierRounds()
    {
        // Given a fix loop whose first round failed on seq_len (torch's fix made it 4)
        // and whose second round exported with a guard on batch
        const QVector<ShapeExplanation> all = decisions(QStringLiteral("/m.py"));
        ExportResult failedRound;
        failedRound.failure.explanations = {all.at(0)};
        ExportResult exportedRound;
        exportedRound.ok = true;
        exportedRound.explanations = {all.at(1)};
        PhasedExportOutcome outcome;
        outcome.rounds = {failedRound, exportedRound};
        outcome.firstAttempt = exportedRound;
        ExportedProgram program;
        program.result = exportedRound;
        outcome.programs << program;
        // Then the Why panel gets both decisions, the earlier round's first
        const QVector<ShapeExplanation> collected = ExplanationsModel::collect(outcome);
        QCOMPARE(collected.size(), 2);
        QCOMPARE(collected.at(0).expression, QStringLiteral("seq_len == 4"));
        QCOMPARE(collected.at(1).expression, QStringLiteral("batch != 1"));
    }

    void excerptShowsTheLineInContext()
    {
        QTemporaryDir dir;
        const SourceExcerpt x = SourceExcerpt::read(writeModel(dir), 6, 2);
        QVERIFY2(x.isValid(), qPrintable(x.error));
        QCOMPARE(x.firstLine, 4);
        QCOMPARE(x.lines.size(), 5);
        QVERIFY(x.toText().contains(QStringLiteral("> 6          if h.shape[1] == 4:")));
        QVERIFY(x.toText().contains(QStringLiteral("  4      def forward(self, x):")));
        // A file that is gone or shorter than the line says so, naming the file.
        const SourceExcerpt gone = SourceExcerpt::read(dir.filePath(QStringLiteral("gone.py")), 3);
        QVERIFY(!gone.isValid());
        QVERIFY(gone.error.startsWith(dir.filePath(QStringLiteral("gone.py"))));
        const SourceExcerpt past = SourceExcerpt::read(dir.filePath(QStringLiteral("model.py")), 99);
        QVERIFY(past.error.contains(QStringLiteral("not 99")));
    }

    void panelShowsTheSourceAndOpensIt()
    {
        QTemporaryDir dir;
        const QString model = writeModel(dir);
        ExplanationsPanel panel;
        panel.resize(700, 500);
        panel.show();
        QVERIFY(panel.headline()->text().startsWith(QStringLiteral("No shape decisions")));
        QVERIFY(!panel.openSourceButton()->isEnabled());
        panel.setExplanations(decisions(model));
        QCOMPARE(panel.headline()->text(), QStringLiteral("2 shape decisions torch made in the last export."));
        // The first decision is selected: its line, highlighted in context.
        QCOMPARE(panel.shownFile(), model);
        QCOMPARE(panel.shownLine(), 6);
        QVERIFY(panel.sourceView()->toPlainText().contains(QStringLiteral("> 6          if h.shape[1] == 4:")));
        QCOMPARE(panel.sourceView()->textCursor().block().text(), QStringLiteral("> 6          if h.shape[1] == 4:"));
        QSignalSpy open(&panel, &ExplanationsPanel::openSourceRequested);
        QPushButton *button = panel.findChild<QPushButton *>(QStringLiteral("explanationsOpenSource"));
        QVERIFY(button && button->isEnabled());
        QTest::mouseClick(button, Qt::LeftButton);
        QCOMPARE(open.count(), 1);
        QCOMPARE(open.first().at(0).toString(), model);
        QCOMPARE(open.first().at(1).toInt(), 6);
        // The guard without a line: nothing to open.
        auto *view = panel.findChild<QTreeView *>(QStringLiteral("explanationsView"));
        view->setCurrentIndex(view->model()->index(1, 0));
        QVERIFY(!button->isEnabled());
        QVERIFY(panel.sourceView()->toPlainText().isEmpty());
        // Library frames on request; a frame's line is shown when selected.
        panel.findChild<QCheckBox *>(QStringLiteral("explanationsLibraryFrames"))->setChecked(true);
        QCOMPARE(view->model()->rowCount(view->model()->index(0, 0)), 1);
        view->setCurrentIndex(view->model()->index(0, 0, view->model()->index(0, 0)));
        QCOMPARE(panel.shownLine(), 1775);
        QVERIFY(panel.sourceView()->toPlainText().contains(QStringLiteral("module.py: ")));
    }

    void decisionsBelongToTheirDocument()
    {
        MainWindow window;
        window.resize(1200, 800);
        window.show();
        ProjectDocument *doc = window.document();
        const Capture capture = test::makeCapture(QStringLiteral("x=2x5 | x=3x6 | x=4x7"));
        doc->setCapture(QStringLiteral("/tmp/x.safetensors"), capture, ShapeInference::infer(capture));
        auto *dock = window.findChild<QDockWidget *>(QStringLiteral("explanationsDock"));
        QVERIFY(dock && !dock->isVisible());
        const QStringList dims = [&] {
            QStringList names;
            for (const DimDecl &d : doc->constraints().dims())
                names << d.name;
            return names;
        }();
        QVERIFY2(dims.size() == 2, qPrintable(dims.join(QLatin1Char(','))));
        // Decisions about the document's first Dim, as the export leaves them.
        QVector<ShapeExplanation> list = decisions(QStringLiteral("/nowhere/model.py"));
        list[1].dims = {dims.first()};
        list[1].expression = dims.first() + QStringLiteral(" != 1");
        // (A failed export's outcome carries them.)
        PhasedExportOutcome outcome;
        outcome.firstAttempt = ExportResult::fromFailure(
            WorkerFailure::make(QStringLiteral("constraint_violation"), QStringLiteral("Constraints violated")));
        outcome.firstAttempt.failure.explanations = list;
        doc->exportResults()->setOutcome(outcome, {});
        QVERIFY(dock->isVisible());
        // Under the Dims they are about, both in view; the program stays in the main area.
        QCOMPARE(window.dockWidgetArea(dock), Qt::RightDockWidgetArea);
        QTRY_VERIFY(!dock->visibleRegion().isEmpty());
        QVERIFY(!window.findChild<QDockWidget *>(QStringLiteral("dimsDock"))->visibleRegion().isEmpty());
        ExplanationsPanel *panel = window.explanationsPanel();
        QCOMPARE(panel->model()->rowCount(), 2);
        // The Dim's row carries them as a tooltip.
        DimsModel *dimsModel = window.dimsPanel()->model();
        const QString tip = dimsModel->index(0, DimsModel::NameColumn).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(dims.first() + QStringLiteral(" != 1")), qPrintable(tip));
        // So does every leaf that uses it, in its constraint column.
        QAbstractItemModel *inputs = window.inputsView()->model();
        const QModelIndex xConstraint = inputs->index(0, InputsModel::ConstraintColumn);
        QCOMPARE(inputs->index(0, InputsModel::NameColumn).data().toString(), QStringLiteral("x"));
        const QString leafTip = xConstraint.data(Qt::ToolTipRole).toString();
        QVERIFY2(leafTip.contains(QStringLiteral("specialized: ") + dims.first() + QStringLiteral(" != 1"))
                     || leafTip.contains(QStringLiteral("guard: ") + dims.first() + QStringLiteral(" != 1")),
                 qPrintable(leafTip));
        // Selecting a Dim shows the decisions about it; Show All brings back the rest.
        emit window.dimsPanel()->dimSelected(dims.first());
        QCOMPARE(panel->model()->rowCount(), 1);
        QVERIFY(panel->headline()->text().startsWith(QStringLiteral("1 of 2 shape decisions involve")));
        QVERIFY(panel->showAllButton()->isVisible());
        panel->showAllButton()->click();
        QCOMPARE(panel->model()->rowCount(), 2);
        // Another capture in the document: the decisions were about the previous one.
        doc->setCapture(QStringLiteral("/tmp/y.safetensors"), capture, ShapeInference::infer(capture));
        QVERIFY(doc->exportResults()->explanations().isEmpty());
        QCOMPARE(panel->model()->rowCount(), 0);
        QVERIFY(dimsModel->index(0, DimsModel::NameColumn).data(Qt::ToolTipRole).toString().isEmpty());
        QVERIFY(!inputs->index(0, InputsModel::ConstraintColumn).data(Qt::ToolTipRole).toString().contains(QStringLiteral("torch decided")));
    }
};

DIMSCOPE_TEST_MAIN(TestExplanations)
#include "tst_explanations.moc"
