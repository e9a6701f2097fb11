// SPDX-License-Identifier: GPL-3.0-or-later
#include "filedialoganswer.h"
#include "capture/capturereader.h"
#include "models/dimcolours.h"
#include "dimcontextmenu.h"
#include "dimedits.h"
#include "dimspanel.h"
#include "exportoptionsdialog.h"
#include "models/inputsdecorator.h"
#include "inputsview.h"
#include "models/inputsfilterproxy.h"
#include "mainwindow.h"
#include "messagebanner.h"
#include "models/dimsmodel.h"
#include "inference/autodims.h"
#include "models/inputsmodel.h"
#include "plotpanel.h"
#include "projectcontroller.h"
#include "document/projectdocument.h"
#include "settings/recentfiles.h"
#include "constraints/constraintsetjson.h"
#include "inference/shapeinference.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QHeaderView>
#include <QStyle>
#include <QTreeView>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include "deterministictestmain.h"
#include "throwawaysettings.h"
#include <QTimer>
#include <QUndoStack>

using namespace dimscope;

// The constraint editing of the desktop app on the bundled demo capture: the document
// (undo, validation, project files), the Dims table, the inputs tree's decorations and
// context menu, and the main window's project commands.
class TestDimsEditing : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void opensDemoThroughActionWithDimNames();
    void editingRangeValidatesAndMarksViolations();
    void invalidEditsAreRefusedWithReason();
    void undoRedoRestoresExactSets();
    void renameMergeDeleteWithUndo();
    void contextMenuActionsChangeTheSet();
    void derivedDimFromContextMenuEdit();
    void projectSavesAndReloads();
    void demoProjectOpensFromCommandLinePath();
    void modifiedStateFollowsUndoAndOptions();
    void plotShowsDimBandAndViolations();
    void copyAndJsonExports();
    void typingInTheTableValidatesAsYouType();
    void selectingDimHighlightsLeavesAndPlots();
    void exportOptionsDialogStoresInDocument();
    void contextMenuPicksTheDimUnderTheCursor();

private:
    static QString demoDir() { return QStringLiteral(DIMSCOPE_SOURCE_DIR "/resources/demo"); }
    static QString demoCapture() { return demoDir() + QStringLiteral("/demo-capture.safetensors"); }
    static QString demoProject() { return demoDir() + QStringLiteral("/demo.dimscope"); }
    // The demo project (capture + its saved constraints, where batch is a Dim) opened
    // into `document` synchronously, as the loader's job would.
    static void loadDemo(ProjectDocument &document);
    static const QStringList cacheLeaves;
    QTemporaryDir m_dir;
};

const QStringList TestDimsEditing::cacheLeaves = {
    QStringLiteral("past_key_values.key_cache[0]"), QStringLiteral("past_key_values.key_cache[1]"),
    QStringLiteral("past_key_values.value_cache[0]"), QStringLiteral("past_key_values.value_cache[1]")};

void TestDimsEditing::initTestCase()
{
    QVERIFY(test::useThrowawaySettings(m_dir, QStringLiteral("tst_dimsediting")));
}

void TestDimsEditing::init() { QSettings().clear(); }

void TestDimsEditing::loadDemo(ProjectDocument &document)
{
    QString error;
    std::optional<Capture> capture = CaptureReader::open(demoCapture(), &error);
    QVERIFY2(capture, qPrintable(error));
    const std::optional<ProjectFile> project = ProjectFile::read(demoProject(), &error);
    QVERIFY2(project && project->constraints, qPrintable(error));
    document.setCapture(demoCapture(), *capture, ShapeInference::infer(*capture), project->constraints);
}

void TestDimsEditing::opensDemoThroughActionWithDimNames()
{
    // Given the main window with testers on both item models before anything is loaded
    MainWindow window;
    window.show();
    QAbstractItemModelTester inputsTester(window.inputsView()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester dimsTester(window.dimsPanel()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy shown(&window, &MainWindow::captureShown);
    // When File > Open Capture… is triggered and the demo typed into the dialog
    const int answered = test::answerFileDialog(window.findChild<QAction *>(QStringLiteral("actionOpenCapture")), demoCapture());
    QVERIFY(answered > 0 && answered <= 250);
    QVERIFY(shown.wait(15000));

    // Then the cache leaves carry their inferred Dims (the demo's batch never changes, so
    // a fresh capture proposes it static), in the constraint column and in colour
    const ProjectDocument *doc = window.document();
    QVERIFY(doc->hasCapture());
    const InputsModel *model = window.inputsView()->model();
    for (const QString &path : cacheLeaves) {
        const QModelIndex constraint = model->indexForPath(path, InputsModel::ConstraintColumn);
        QVERIFY2(constraint.isValid(), qPrintable(path));
        QCOMPARE(constraint.data().toString(), QStringLiteral("static, static, past_len, static"));
        const QVariantList colours = model->indexForPath(path, InputsModel::ShapeColumn).data(InputsModel::DimColoursRole).toList();
        QCOMPARE(colours.size(), 4);
        QVERIFY(colours.at(2).value<QColor>().isValid());
        QCOMPARE(colours.at(2).value<QColor>(), doc->dimColours().colour(QStringLiteral("past_len")));
        QVERIFY(!colours.at(0).value<QColor>().isValid());
    }
    const QVariantList idColours =
        model->indexForPath(QStringLiteral("input_ids"), InputsModel::ShapeColumn).data(InputsModel::DimColoursRole).toList();
    QVERIFY(idColours.value(1).value<QColor>().isValid());
    QVERIFY(idColours.value(1).value<QColor>() != doc->dimColours().colour(QStringLiteral("past_len")));
    // and the Dims table lists the inferred Dims, all consistent with the capture
    const DimsModel *dims = window.dimsPanel()->model();
    QCOMPARE(dims->rowCount(), doc->constraints().dims().size());
    const int pastLen = dims->rowOf(QStringLiteral("past_len"));
    QVERIFY(pastLen >= 0);
    QCOMPARE(dims->index(pastLen, DimsModel::UsesColumn).data().toInt(), 4);
    QCOMPARE(dims->index(pastLen, DimsModel::ObservedColumn).data().toString(), QStringLiteral("0..11"));
    // the prefill's empty cache is a 0 torch would specialize
    QCOMPARE(dims->index(pastLen, DimsModel::StatusColumn).data().toString(), QStringLiteral("0/1 specialization risk"));
    QVERIFY(doc->validation().ok());
    QVERIFY(!window.isWindowModified());
}

void TestDimsEditing::editingRangeValidatesAndMarksViolations()
{
    ProjectDocument doc;
    DimsModel dims(&doc);
    QAbstractItemModelTester tester(&dims, QAbstractItemModelTester::FailureReportingMode::QtTest);
    InputsModel inputs;
    QAbstractItemModelTester inputsTester(&inputs, QAbstractItemModelTester::FailureReportingMode::QtTest);
    InputsDecorator decorator(&doc, &inputs);
    loadDemo(doc);
    inputs.setCapture(doc.capture());
    decorator.refresh();
    QVERIFY(doc.validation().ok());
    const int row = dims.rowOf(QStringLiteral("past_len"));
    QVERIFY(row >= 0);
    QCOMPARE(dims.index(dims.rowOf(QStringLiteral("batch")), DimsModel::StatusColumn).data().toString(), QStringLiteral("ok"));

    // When max of past_len becomes 6, as the table's delegate would write it
    QSignalSpy validated(&doc, &ProjectDocument::validationChanged);
    QCOMPARE(dims.checkEdit(dims.index(row, DimsModel::MaxColumn), QStringLiteral("6")), QString());
    QVERIFY(dims.setData(dims.index(row, DimsModel::MaxColumn), QStringLiteral("6")));
    QVERIFY(validated.count() >= 1);
    QCOMPARE(doc.constraints().dim(QStringLiteral("past_len"))->max, std::optional<qint64>(6));

    // Then the calls with a longer cache violate it, in the table and in the tree
    QVERIFY(!doc.validation().ok());
    const QList<int> calls = dims.index(row, DimsModel::NameColumn).data(DimsModel::ViolatedCallsRole).value<QList<int>>();
    QVERIFY(!calls.isEmpty());
    QCOMPARE(dims.index(row, DimsModel::StatusColumn).data().toString(),
             calls.size() == 1 ? QStringLiteral("violated in 1 call") : QStringLiteral("violated in %1 calls").arg(calls.size()));
    for (const QString &path : cacheLeaves) {
        const QModelIndex name = inputs.indexForPath(path, InputsModel::NameColumn);
        const QStringList violations = name.data(InputsModel::ViolationsRole).toStringList();
        QVERIFY2(!violations.isEmpty(), qPrintable(path));
        QVERIFY(violations.first().contains(QStringLiteral("past_len")));
        QVERIFY(violations.first().contains(QStringLiteral("call %1").arg(calls.first())));
        QVERIFY(!name.data(Qt::DecorationRole).value<QIcon>().isNull());
        QVERIFY(name.data(Qt::ToolTipRole).toString().contains(QStringLiteral("past_len")));
    }
    QVERIFY(inputs.indexForPath(QStringLiteral("input_ids")).data(InputsModel::ViolationsRole).toStringList().isEmpty());

    // And clearing max again (empty = unbounded) removes the marks
    QVERIFY(dims.setData(dims.index(row, DimsModel::MaxColumn), QString()));
    QVERIFY(doc.validation().ok());
    QVERIFY(inputs.indexForPath(cacheLeaves.first()).data(InputsModel::ViolationsRole).toStringList().isEmpty());
    QVERIFY(inputs.indexForPath(cacheLeaves.first()).data(Qt::DecorationRole).isNull());
}

void TestDimsEditing::invalidEditsAreRefusedWithReason()
{
    ProjectDocument doc;
    DimsModel dims(&doc);
    QAbstractItemModelTester tester(&dims, QAbstractItemModelTester::FailureReportingMode::QtTest);
    loadDemo(doc);
    const ConstraintSet before = doc.constraints();
    const int row = dims.rowOf(QStringLiteral("batch"));
    QSignalSpy rejected(&dims, &DimsModel::editRejected);

    // Not an integer, min above max, a Python keyword, a name taken
    QVERIFY(!dims.checkEdit(dims.index(row, DimsModel::MinColumn), QStringLiteral("two")).isEmpty());
    QVERIFY(!dims.setData(dims.index(row, DimsModel::MinColumn), QStringLiteral("two")));
    QVERIFY(dims.lastError().contains(QStringLiteral("two")));
    QVERIFY(dims.setData(dims.index(row, DimsModel::MaxColumn), QStringLiteral("10")));
    const ConstraintSet withMax = doc.constraints();
    QVERIFY(!dims.checkEdit(dims.index(row, DimsModel::MinColumn), QStringLiteral("11")).isEmpty());
    QVERIFY(!dims.setData(dims.index(row, DimsModel::MinColumn), QStringLiteral("11")));
    QVERIFY(!dims.setData(dims.index(row, DimsModel::NameColumn), QStringLiteral("class")));
    QVERIFY(dims.lastError().contains(QStringLiteral("class")));
    QVERIFY(!dims.setData(dims.index(row, DimsModel::NameColumn), QStringLiteral("past_len")));
    QCOMPARE(rejected.count(), 4);
    // Then nothing of them was applied and only the valid edit is on the undo stack
    QVERIFY(doc.constraints() == withMax);
    QCOMPARE(doc.undoStack()->count(), 1);
    doc.undoStack()->undo();
    QVERIFY(doc.constraints() == before);
    // A derived Dim's range is not editable in place
    for (int r = 0; r < dims.rowCount(); ++r) {
        if (dims.index(r, 0).data(DimsModel::IsDerivedRole).toBool())
            QVERIFY(!(dims.flags(dims.index(r, DimsModel::MinColumn)) & Qt::ItemIsEditable));
    }
}

void TestDimsEditing::undoRedoRestoresExactSets()
{
    ProjectDocument doc;
    DimsModel dims(&doc);
    QAbstractItemModelTester tester(&dims, QAbstractItemModelTester::FailureReportingMode::QtTest);
    loadDemo(doc);
    QVector<ConstraintSet> states{doc.constraints()};
    QVERIFY(dims.setData(dims.index(dims.rowOf(QStringLiteral("batch")), DimsModel::MaxColumn), QStringLiteral("64")));
    states.append(doc.constraints());
    QCOMPARE(dimedits::assign(&doc, cacheLeaves.at(0), 1, DimAssignment::makeAuto()), QString());
    states.append(doc.constraints());
    QCOMPARE(dims.renameDim(QStringLiteral("past_len"), QStringLiteral("cache_len")), QString());
    states.append(doc.constraints());
    QCOMPARE(doc.undoStack()->count(), 3);
    for (int i = 1; i < states.size(); ++i)
        QVERIFY(states.at(i) != states.at(i - 1));

    for (int i = states.size() - 2; i >= 0; --i) {
        doc.undoStack()->undo();
        QVERIFY2(doc.constraints() == states.at(i), qPrintable(QStringLiteral("undo to state %1").arg(i)));
        // a row per Dim, then one per Dim.AUTO group (the auto cache length of state 2)
        QCOMPARE(dims.rowCount(), states.at(i).dims().size() + AutoDims::find(doc.inference(), states.at(i)).size());
    }
    for (int i = 1; i < states.size(); ++i) {
        doc.undoStack()->redo();
        QVERIFY2(doc.constraints() == states.at(i), qPrintable(QStringLiteral("redo to state %1").arg(i)));
    }
    QVERIFY(dims.rowOf(QStringLiteral("cache_len")) >= 0);
    QVERIFY(dims.rowOf(QStringLiteral("past_len")) < 0);
}

void TestDimsEditing::renameMergeDeleteWithUndo()
{
    ProjectDocument doc;
    DimsModel dims(&doc);
    QAbstractItemModelTester tester(&dims, QAbstractItemModelTester::FailureReportingMode::QtTest);
    loadDemo(doc);
    const ConstraintSet original = doc.constraints();
    const int rows = dims.rowCount();

    // Rename in place (the name cell), uses follow
    QVERIFY(dims.setData(dims.index(dims.rowOf(QStringLiteral("batch")), DimsModel::NameColumn), QStringLiteral("bsz")));
    QCOMPARE(doc.constraints().assignment(cacheLeaves.at(0), 0), DimAssignment::named(QStringLiteral("bsz")));
    QCOMPARE(dims.rowCount(), rows);

    // Add a Dim, then merge it into past_len: one row less, uses unchanged
    QString added;
    QCOMPARE(dims.addDim(&added), QString());
    QCOMPARE(dims.rowCount(), rows + 1);
    QCOMPARE(dims.index(dims.rowOf(added), DimsModel::UsesColumn).data().toInt(), 0);
    QCOMPARE(dims.index(dims.rowOf(added), DimsModel::StatusColumn).data().toString(), QStringLiteral("unused"));
    QCOMPARE(dimedits::assign(&doc, QStringLiteral("past_key_values.key_cache[1]"), 2, DimAssignment::named(added)), QString());
    QCOMPARE(dims.mergeDims(QStringLiteral("past_len"), added), QString());
    QCOMPARE(dims.rowCount(), rows);
    QCOMPARE(doc.constraints().assignment(QStringLiteral("past_key_values.key_cache[1]"), 2),
             DimAssignment::named(QStringLiteral("past_len")));
    QCOMPARE(dims.index(dims.rowOf(QStringLiteral("past_len")), DimsModel::UsesColumn).data().toInt(), 4);

    // Delete: its uses become static
    QCOMPARE(dims.deleteDim(QStringLiteral("past_len")), QString());
    QCOMPARE(dims.rowCount(), rows - 1);
    QCOMPARE(doc.constraints().assignment(cacheLeaves.at(0), 2), DimAssignment::makeStatic());
    QVERIFY(!doc.validation().ok()); // the cache length does change between calls

    // Undo everything: exactly the original set
    QCOMPARE(doc.undoStack()->count(), 5);
    while (doc.undoStack()->canUndo())
        doc.undoStack()->undo();
    QVERIFY(doc.constraints() == original);
    QCOMPARE(dims.rowCount(), rows);
    QVERIFY(doc.validation().ok());
}

void TestDimsEditing::contextMenuActionsChangeTheSet()
{
    ProjectDocument doc;
    loadDemo(doc);
    const QString leaf = cacheLeaves.at(1);
    QStringList errors;
    auto report = [&](const QString &e) {
        if (!e.isEmpty())
            errors.append(e);
    };
    auto trigger = [&](int dim, const QString &action) {
        QMenu menu;
        DimContextMenu::populate(&menu, &doc, leaf, dim, nullptr, report);
        QAction *a = menu.findChild<QAction *>(action);
        QVERIFY2(a, qPrintable(action));
        a->trigger();
    };
    // Dim 2 (under the cursor): Dim.DYNAMIC, then Dim.AUTO, then static
    trigger(2, QStringLiteral("actionMakeDynamic"));
    QCOMPARE(doc.constraints().assignment(leaf, 2), DimAssignment::makeDynamic());
    trigger(2, QStringLiteral("actionMakeAuto"));
    QCOMPARE(doc.constraints().assignment(leaf, 2), DimAssignment::makeAuto());
    trigger(2, QStringLiteral("actionMakeStatic"));
    QCOMPARE(doc.constraints().assignment(leaf, 2), DimAssignment::makeStatic());
    QVERIFY(!doc.validation().ok());
    // Assign back to past_len from the submenu of existing Dims
    trigger(2, QStringLiteral("assign_past_len"));
    QCOMPARE(doc.constraints().assignment(leaf, 2), DimAssignment::named(QStringLiteral("past_len")));
    QVERIFY(doc.validation().ok());
    // No dim under the cursor: one submenu per dim; "New Dim from here" in the first (dim 0)
    const int dimsBefore = doc.constraints().dims().size();
    trigger(-1, QStringLiteral("actionNewDim"));
    QCOMPARE(doc.constraints().dims().size(), dimsBefore + 1);
    const DimAssignment made = doc.constraints().assignment(leaf, 0);
    QVERIFY(made.isNamed());
    QCOMPARE(made.dim, doc.constraints().dims().last().name);
    QVERIFY(errors.isEmpty());
    QCOMPARE(doc.undoStack()->count(), 5);
    // A menu for the dim under the cursor shows it checked
    QMenu menu;
    DimContextMenu::populate(&menu, &doc, leaf, 2, nullptr, report);
    QVERIFY(menu.findChild<QAction *>(QStringLiteral("assign_past_len"))->isChecked());
}

void TestDimsEditing::derivedDimFromContextMenuEdit()
{
    ProjectDocument doc;
    loadDemo(doc);
    const ConstraintSet before = doc.constraints();
    // A derived Dim for the cache length that does not fit the captured calls: applied as
    // one undo step (the user decides), and validation says where it fails.
    QCOMPARE(dimedits::newDerivedDim(&doc, cacheLeaves.at(0), 2, QStringLiteral("cache_plus"), QStringLiteral("batch"), 1, 3),
             QString());
    QCOMPARE(doc.constraints().dim(QStringLiteral("cache_plus"))->relationText(), QStringLiteral("batch + 3"));
    QCOMPARE(doc.constraints().assignment(cacheLeaves.at(0), 2), DimAssignment::named(QStringLiteral("cache_plus")));
    QVERIFY(!doc.validation().ok()); // batch + 3 is not the cache length in every call
    // A name that is taken is refused, nothing changes
    const ConstraintSet after = doc.constraints();
    QVERIFY(!dimedits::newDerivedDim(&doc, cacheLeaves.at(1), 2, QStringLiteral("batch"), QStringLiteral("batch"), 1, 0).isEmpty());
    QVERIFY(doc.constraints() == after);
    doc.undoStack()->undo();
    QVERIFY(doc.constraints() == before);
}

void TestDimsEditing::projectSavesAndReloads()
{
    // Given the demo capture with edits, a model reference and export options
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::captureShown);
    QVERIFY(window.openFile(demoCapture()));
    QVERIFY(shown.wait(15000));
    ProjectDocument *doc = window.document();
    DimsModel *dims = window.dimsPanel()->model();
    QVERIFY(dims->setData(dims->index(dims->rowOf(QStringLiteral("past_len")), DimsModel::MaxColumn), QStringLiteral("6")));
    QCOMPARE(dims->renameDim(QStringLiteral("past_len"), QStringLiteral("cache_len")), QString());
    doc->setModelRef(QStringLiteral("dimscope.demo:make_model"));
    ExportOptions options;
    options.exampleCall = 2;
    options.strict = true;
    doc->setExportOptions(options);
    QVERIFY(doc->isModified());
    QVERIFY(window.isWindowModified());
    const ConstraintSet edited = doc->constraints();

    // When it is saved through Save Project (the path answered by the hook)
    const QString path = m_dir.filePath(QStringLiteral("saved.dimscope"));
    window.projectController()->setSavePathHook([&](const QString &) { return path; });
    window.findChild<QAction *>(QStringLiteral("actionSaveProject"))->trigger();
    QVERIFY(QFileInfo::exists(path));
    QVERIFY(!doc->isModified());
    QVERIFY(!window.isWindowModified());
    QCOMPARE(doc->projectPath(), path);
    QVERIFY(window.windowTitle().contains(QStringLiteral("saved.dimscope")));
    QString error;
    const std::optional<ProjectFile> read = ProjectFile::read(path, &error);
    QVERIFY2(read, qPrintable(error));
    QVERIFY(*read == doc->toProjectFile());

    // Then a fresh window opening the project has the same state, violations included
    MainWindow second;
    QSignalSpy shown2(&second, &MainWindow::captureShown);
    QVERIFY(second.openFile(path));
    QVERIFY(shown2.wait(15000));
    const ProjectDocument *reopened = second.document();
    QVERIFY(reopened->constraints() == edited);
    QCOMPARE(reopened->modelRef(), QStringLiteral("dimscope.demo:make_model"));
    QVERIFY(reopened->exportOptions() == options);
    QCOMPARE(reopened->projectPath(), QFileInfo(path).absoluteFilePath());
    QCOMPARE(QFileInfo(reopened->capturePath()).canonicalFilePath(), QFileInfo(demoCapture()).canonicalFilePath());
    QVERIFY(!reopened->isModified());
    QVERIFY(!reopened->validation().ok());
    QVERIFY(!second.inputsView()->model()->indexForPath(cacheLeaves.first()).data(InputsModel::ViolationsRole).toStringList().isEmpty());
    QSettings settings;
    QCOMPARE(RecentFiles(settings).files().value(0), QFileInfo(path).absoluteFilePath());
}

void TestDimsEditing::demoProjectOpensFromCommandLinePath()
{
    MainWindow window;
    QAbstractItemModelTester dimsTester(window.dimsPanel()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy shown(&window, &MainWindow::captureShown);
    QVERIFY(window.openFile(demoProject()));
    QVERIFY(shown.wait(15000));
    QString error;
    const std::optional<ProjectFile> project = ProjectFile::read(demoProject(), &error);
    QVERIFY2(project && project->constraints, qPrintable(error));
    QVERIFY(window.document()->constraints() == *project->constraints);
    QCOMPARE(window.document()->modelRef(), project->modelRef);
    QVERIFY(window.windowTitle().contains(QStringLiteral("demo.dimscope")));
    QVERIFY(!window.isWindowModified());
    QCOMPARE(window.dimsPanel()->model()->rowCount(), project->constraints->dims().size());
    // A project whose capture is gone: an inline message naming both
    const QString broken = m_dir.filePath(QStringLiteral("broken.dimscope"));
    ProjectFile missing = *project;
    missing.capturePath = m_dir.filePath(QStringLiteral("gone.safetensors"));
    QVERIFY(ProjectFile::write(broken, missing, &error));
    QSignalSpy failed(&window, &MainWindow::openFailed);
    QVERIFY(window.openFile(broken)); // the project is read off the GUI thread, then found wanting
    QVERIFY(failed.wait(15000));
    QVERIFY(window.banner()->text().contains(QStringLiteral("gone.safetensors")));
    QVERIFY(window.document()->constraints() == *project->constraints); // still the demo
}

void TestDimsEditing::modifiedStateFollowsUndoAndOptions()
{
    ProjectDocument doc;
    loadDemo(doc);
    QSignalSpy modified(&doc, &ProjectDocument::modifiedChanged);
    QVERIFY(!doc.isModified());
    QCOMPARE(dimedits::assign(&doc, cacheLeaves.at(0), 1, DimAssignment::makeAuto()), QString());
    QVERIFY(doc.isModified());
    doc.undoStack()->undo();
    QVERIFY(!doc.isModified());
    doc.setModelRef(QStringLiteral("m.py:make"));
    QVERIFY(doc.isModified());
    doc.setModelRef(QString());
    QVERIFY(!doc.isModified());
    QCOMPARE(modified.count(), 4);
    // Replacing the set (Apply fixes) is one undo step; equal sets push nothing
    ConstraintSet fixed = doc.constraints();
    QCOMPARE(fixed.specializeDim(QStringLiteral("past_len")), QString());
    doc.replaceConstraints(doc.constraints(), QStringLiteral("nothing"));
    QCOMPARE(doc.undoStack()->count(), 1); // the undone assign is still there to redo
    doc.replaceConstraints(fixed, QStringLiteral("Apply fixes"));
    QVERIFY(doc.constraints() == fixed);
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Apply fixes"));
}

void TestDimsEditing::plotShowsDimBandAndViolations()
{
    ProjectDocument doc;
    PlotPanel plot;
    plot.setDocument(&doc);
    loadDemo(doc);
    plot.showDim(QStringLiteral("past_len"));
    QCOMPARE(plot.dim(), QStringLiteral("past_len"));
    QVERIFY(!plot.points().isEmpty());
    QVERIFY(plot.band());
    QVERIFY(std::isinf(plot.band()->second));
    QVERIFY(plot.violatingCalls().isEmpty());
    // Editing the range redraws: the band follows, calls above it are marked
    QCOMPARE(doc.edit(QStringLiteral("max"), [](ConstraintSet &s) { return s.setRange(QStringLiteral("past_len"), 0, 6); }), QString());
    QCOMPARE(plot.band()->second, 6.0);
    QVERIFY(!plot.violatingCalls().isEmpty());
    for (int call : plot.violatingCalls()) {
        bool above = false;
        for (const QPointF &p : plot.points())
            above |= int(p.x()) == call && p.y() > 6;
        QVERIFY(above);
    }
}

void TestDimsEditing::copyAndJsonExports()
{
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::captureShown);
    QVERIFY(window.openFile(demoCapture()));
    QVERIFY(shown.wait(15000));
    auto *copy = window.findChild<QAction *>(QStringLiteral("actionCopyDynamicShapes"));
    QVERIFY(copy->isEnabled());
    copy->trigger();
    const QString python = QGuiApplication::clipboard()->text();
    QVERIFY(python.contains(QStringLiteral("dynamic_shapes")));
    QVERIFY(python.contains(QStringLiteral("past_len")));
    const QString json = m_dir.filePath(QStringLiteral("c.json"));
    QVERIFY(window.projectController()->saveConstraintsJson(json));
    QString error;
    const std::optional<ConstraintSet> read = ConstraintSetJson::readFile(json, &error);
    QVERIFY2(read, qPrintable(error));
    QVERIFY(*read == window.document()->constraints());
}

void TestDimsEditing::typingInTheTableValidatesAsYouType()
{
    ProjectDocument doc;
    loadDemo(doc);
    DimsPanel panel(&doc);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const DimsModel *dims = panel.model();
    const QModelIndex min = dims->index(dims->rowOf(QStringLiteral("batch")), DimsModel::MinColumn);
    // When min of batch is edited in place and "3" typed: batch is 2 in every call
    panel.table()->setCurrentIndex(min);
    panel.table()->edit(min);
    auto *editor = panel.table()->findChild<QLineEdit *>(QStringLiteral("dimEditor"));
    QVERIFY(editor);
    editor->selectAll();
    QTest::keyClicks(editor, QStringLiteral("x"));
    // Then the text is flagged while typed, with the reason beside the table
    QVERIFY(!editor->toolTip().isEmpty());
    QVERIFY(panel.problemLabel()->isVisible());
    QVERIFY(panel.problemLabel()->text().contains(QStringLiteral("x")));
    editor->selectAll();
    QTest::keyClicks(editor, QStringLiteral("3"));
    QVERIFY(editor->toolTip().isEmpty());
    QVERIFY(!panel.problemLabel()->isVisible());
    QTest::keyClick(editor, Qt::Key_Return);
    // and committing (queued by the delegate) applies it as one undo step; validation now flags batch
    QTRY_COMPARE(doc.constraints().dim(QStringLiteral("batch"))->min, std::optional<qint64>(3));
    QCOMPARE(doc.undoStack()->count(), 1);
    QVERIFY(!doc.validation().ok());
    QVERIFY(dims->index(dims->rowOf(QStringLiteral("batch")), DimsModel::StatusColumn).data().toString().startsWith(QStringLiteral("violated")));
    // A refused commit leaves the set alone and says why
    const QModelIndex max = dims->index(dims->rowOf(QStringLiteral("batch")), DimsModel::MaxColumn);
    panel.table()->edit(max);
    editor = panel.table()->findChild<QLineEdit *>(QStringLiteral("dimEditor"));
    QVERIFY(editor);
    editor->selectAll();
    QTest::keyClicks(editor, QStringLiteral("1"));
    QTest::keyClick(editor, Qt::Key_Return);
    QTRY_VERIFY(panel.problemLabel()->isVisible());
    QVERIFY(panel.problemLabel()->text().contains(QStringLiteral("batch")));
    QCOMPARE(doc.constraints().dim(QStringLiteral("batch"))->max, std::optional<qint64>());
    QCOMPARE(doc.undoStack()->count(), 1);
}

void TestDimsEditing::selectingDimHighlightsLeavesAndPlots()
{
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::captureShown);
    QVERIFY(window.openFile(demoProject()));
    QVERIFY(shown.wait(15000));
    const InputsModel *model = window.inputsView()->model();
    QVERIFY(!model->indexForPath(cacheLeaves.first()).data(Qt::BackgroundRole).isValid());
    window.dimsPanel()->selectDim(QStringLiteral("past_len"));
    for (const QString &path : cacheLeaves)
        QVERIFY2(model->indexForPath(path).data(Qt::BackgroundRole).value<QColor>().isValid(), qPrintable(path));
    QVERIFY(!model->indexForPath(QStringLiteral("input_ids")).data(Qt::BackgroundRole).isValid());
    QCOMPARE(window.plotPanel()->dim(), QStringLiteral("past_len"));
    QCOMPARE(window.plotPanel()->points().size(), 6);
    // Selecting a leaf in the tree goes back to its dimension
    window.inputsView()->tree()->setCurrentIndex(
        window.inputsView()->proxy()->mapFromSource(model->indexForPath(QStringLiteral("attention_mask"))));
    QCOMPARE(window.plotPanel()->dim(), QString());
    QVERIFY(window.plotPanel()->band()); // attention_mask dim 1 is total_len: its band is drawn
}

void TestDimsEditing::exportOptionsDialogStoresInDocument()
{
    MainWindow window;
    QSignalSpy shown(&window, &MainWindow::captureShown);
    QVERIFY(window.openFile(demoProject()));
    QVERIFY(shown.wait(15000));
    bool answered = false;
    QTimer::singleShot(0, this, [&] {
        auto *dialog = qobject_cast<ExportOptionsDialog *>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        answered = true;
        dialog->exampleCallBox()->setCurrentIndex(dialog->exampleCallBox()->findData(3));
        dialog->strictBox()->setChecked(true);
        // issue 29 item 2: one file per program instead of one archive
        auto *separate = dialog->findChild<QCheckBox *>(QStringLiteral("separatePrograms"));
        if (separate && separate->isEnabled())
            separate->setChecked(true);
        dialog->accept();
    });
    QVERIFY(!window.document()->exportOptions().separatePrograms);
    window.findChild<QAction *>(QStringLiteral("actionExportOptions"))->trigger();
    QVERIFY(answered);
    QCOMPARE(window.document()->exportOptions().exampleCall, 3);
    QVERIFY(window.document()->exportOptions().strict);
    QVERIFY(window.document()->exportOptions().separatePrograms);
    QCOMPARE(window.document()->exportOptions().device, QStringLiteral("cpu"));
    QVERIFY(window.isWindowModified());
    window.document()->undoStack()->clear();
}

void TestDimsEditing::contextMenuPicksTheDimUnderTheCursor()
{
    MainWindow window;
    window.resize(1400, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QSignalSpy shown(&window, &MainWindow::captureShown);
    QVERIFY(window.openFile(demoProject()));
    QVERIFY(shown.wait(15000));
    InputsView *view = window.inputsView();
    const QModelIndex leaf = view->proxy()->mapFromSource(view->model()->indexForPath(cacheLeaves.first()));
    QTreeView *tree = view->tree();
    tree->header()->resizeSection(InputsModel::ConstraintColumn, 400);
    // In the constraint column "batch, static, past_len, static": the middle of each label
    const QRect cell = tree->visualRect(leaf.siblingAtColumn(InputsModel::ConstraintColumn));
    QFont bold = tree->font();
    bold.setBold(true);
    const QFontMetrics fm(bold);
    const int margin = tree->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, tree) + 1;
    const QStringList labels{QStringLiteral("batch"), QStringLiteral("static"), QStringLiteral("past_len"), QStringLiteral("static")};
    int x = cell.left() + margin;
    for (int d = 0; d < labels.size(); ++d) {
        const int mid = x + fm.horizontalAdvance(labels.at(d)) / 2;
        QCOMPARE(view->dimAt(leaf, QPoint(mid, cell.center().y())), d);
        x += fm.horizontalAdvance(labels.at(d) + QStringLiteral(", "));
    }
    // In the name column there is no dimension under the cursor
    QCOMPARE(view->dimAt(leaf, tree->visualRect(leaf).center()), -1);
}

DIMSCOPE_TEST_MAIN(TestDimsEditing)
#include "tst_dimsediting.moc"
