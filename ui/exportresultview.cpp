// SPDX-License-Identifier: GPL-3.0-or-later
#include "exportresultview.h"

#include "compacttable.h"
#include "heldoutview.h"
#include "models/servedrangesmodel.h"

#include "warningcolour.h"
#include "export/exportphases.h"
#include "document/exportresults.h"
#include "text/failureadvice.h"
#include "models/dimcolours.h"
#include "models/programsmodel.h"
#include "models/verificationmodel.h"
#include "pt2programview.h"
#include "tableactions.h"
#include "tablefilter.h"
#include "wrappingitemdelegate.h"
#include "wrappinglabel.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace dimscope {

namespace {

// The headline's verdict ("Exported", "Export failed") in bold green or red that reads
// on the window's background: lightened in the dark theme to 4.5:1, as the verification
// table's status colours are (issue 28 problem 10: #1b7f2a on #1e1e1e read at 3.3:1).
QString verdict(const QWidget *on, bool ok, const QString &text)
{
    const QColor colour = ok ? QColor(0x1b, 0x7f, 0x2a) : QColor(0xc0, 0x39, 0x2b);
    const QColor readable = DimColours::readableOn(colour, on->palette().color(QPalette::Window));
    return QStringLiteral("<b style='color:%1'>%2</b>").arg(readable.name(), text);
}

} // namespace

ExportResultView::ExportResultView(const ExportResults *results, QWidget *parent)
    : QWidget(parent), m_results(results), m_headline(new QLabel(this)), m_pages(new QStackedWidget(this)),
      m_programsModel(new ProgramsModel(this)), m_programsView(new QTableView(this)), m_program(new Pt2ProgramView),
      m_verification(new VerificationModel(this)), m_verificationView(new QTableView),
      m_servedRanges(new ServedRangesModel(this)), m_violations(new QTreeWidget),
      m_fixes(new QListWidget), m_apply(new QPushButton(tr("Apply fixes"))), m_reexport(new QPushButton(tr("Re-export"))),
      m_fixOutcome(new QLabel), m_details(new QPlainTextEdit), m_fixesBox(new QWidget), m_findings(new QSplitter(Qt::Horizontal)),
      m_advice(new QLabel), m_filter(new TableFilter(this))
{
    m_headline->setObjectName(QStringLiteral("exportHeadline"));
    m_headline->setWordWrap(true);
    WrappingLabel::neverWidens(m_headline);
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_headline->setText(tr("No export yet. Export > Export on CPU runs torch.export with the current constraints."));
    m_programsView->setObjectName(QStringLiteral("programsTable"));
    m_programsView->setModel(m_programsModel);
    m_programsView->verticalHeader()->hide();
    m_programsView->horizontalHeader()->setStretchLastSection(true);
    m_programsView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_programsView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_programsView->setMaximumHeight(m_programsView->fontMetrics().height() * 7);
    CompactTable::allowOneRow(m_programsView);
    m_programsView->hide();
    connect(m_programsView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid() && current.row() != m_selected)
                    selectProgram(current.row());
            });
    m_pages->addWidget(new QWidget); // empty
    m_pages->addWidget(createSuccessPage());
    m_failurePage = createFailurePage();
    m_pages->addWidget(m_failurePage);
    addTableTools();
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_headline);
    layout->addWidget(m_programsView);
    layout->addWidget(createUnservedBox());
    layout->addWidget(m_filter);
    layout->addWidget(m_pages, 1);
    connect(m_results, &ExportResults::changed, this, &ExportResultView::showResults);
    showResults();
}

void ExportResultView::showResults()
{
    if (m_results->hasOutcome())
        showOutcome();
    else if (!m_results->openedPrograms().isEmpty())
        showPrograms(m_results->openedPrograms());
    else
        clear();
}

// Copy / Export as CSV on every result table, and one search over those of the page
// shown (the programs table stays whole: it selects the program shown).
void ExportResultView::addTableTools()
{
    TableActions::attach(m_programsView, tr("Programs"));
    TableActions::attach(m_verificationView, tr("Verification"));
    TableActions::attach(m_heldOut->tableView(), tr("Held-out calls"));
    TableActions::attach(m_servedRangesView, tr("Served ranges"));
    TableActions::attach(m_violations, tr("Violations"));
    m_filter->setObjectName(QStringLiteral("resultFilterBar"));
    m_filter->addView(m_program->inputsView());
    m_filter->addView(m_program->rangesView());
    m_filter->addView(m_verificationView);
    m_filter->addView(m_heldOut->tableView());
    m_filter->addView(m_servedRangesView);
    m_filter->addView(m_violations);
    connect(m_pages, &QStackedWidget::currentChanged, this, &ExportResultView::refreshFilter);
    refreshFilter();
}

// The search is there when tables are; it recounts when a page or a table's
// visibility changed (models refilled recount on their own).
void ExportResultView::refreshFilter()
{
    m_filter->setVisible(m_pages->currentIndex() != 0);
    m_filter->refresh();
}

QWidget *ExportResultView::createUnservedBox()
{
    m_unservedBox = new QWidget(this);
    m_unservedBox->setObjectName(QStringLiteral("unservedBox"));
    m_unservedAdvice = new QLabel(m_unservedBox);
    m_unservedAdvice->setObjectName(QStringLiteral("unservedAdvice"));
    m_unservedAdvice->setWordWrap(true);
    WrappingLabel::neverWidens(m_unservedAdvice);
    m_unservedAdvice->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_exportPhases = new QPushButton(tr("Export a Program per Phase"), m_unservedBox);
    m_exportPhases->setObjectName(QStringLiteral("exportPhasesButton"));
    m_exportPhases->setToolTip(tr("Turns on Export Options' fix loop (a program for each phase of the captured calls) "
                                  "and exports again"));
    connect(m_exportPhases, &QPushButton::clicked, this, &ExportResultView::exportPhasesRequested);
    auto *layout = new QVBoxLayout(m_unservedBox);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_unservedAdvice);
    layout->addWidget(m_exportPhases, 0, Qt::AlignLeft);
    m_unservedBox->hide();
    return m_unservedBox;
}

void ExportResultView::showUnservedAdvice()
{
    const UnservedAdvice advice = m_results->hasOutcome() ? m_results->unservedAdvice() : UnservedAdvice();
    m_unservedAdvice->setText(advice.text());
    m_exportPhases->setVisible(advice.exportPhases);
    m_unservedBox->setVisible(!advice.isEmpty());
}

QWidget *ExportResultView::createSuccessPage()
{
    m_verificationView->setObjectName(QStringLiteral("verificationTable"));
    m_verificationView->setModel(m_verification);
    m_verificationView->verticalHeader()->hide();
    m_verificationView->horizontalHeader()->setStretchLastSection(true);
    m_verificationView->setSelectionBehavior(QAbstractItemView::SelectRows);
    auto *split = new QSplitter(Qt::Vertical);
    // The held-out calls beside the captured ones, as a tab: the page's minimum height
    // stays that of one table.
    m_heldOut = new HeldOutView;
    m_heldOut->setObjectName(QStringLiteral("heldOutView"));
    connect(m_heldOut, &HeldOutView::verifyRequested, this, &ExportResultView::verifyWithRequested);
    m_callTabs = new QTabWidget;
    m_callTabs->setObjectName(QStringLiteral("callTabs"));
    m_callTabs->setDocumentMode(true);
    m_callTabs->addTab(m_verificationView, tr("Captured calls"));
    m_callTabs->addTab(m_heldOut, tr("Held-out calls"));
    // What the programs' declared ranges served when probed (issue 24 item 3).
    m_servedRangesView = new QTableView;
    m_servedRangesView->setObjectName(QStringLiteral("servedRangesTable"));
    m_servedRangesView->setModel(m_servedRanges);
    m_servedRangesView->verticalHeader()->hide();
    m_servedRangesView->horizontalHeader()->setStretchLastSection(true);
    m_servedRangesView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_callTabs->addTab(m_servedRangesView, tr("Served ranges"));
    for (QAbstractItemView *table : {static_cast<QAbstractItemView *>(m_verificationView),
                                     static_cast<QAbstractItemView *>(m_program->inputsView()),
                                     static_cast<QAbstractItemView *>(m_program->rangesView())})
        CompactTable::allowOneRow(table);
    split->addWidget(m_program);
    split->addWidget(m_callTabs);
    return split;
}

QWidget *ExportResultView::createFailurePage()
{
    m_violations->setObjectName(QStringLiteral("violationsView"));
    m_violations->setColumnCount(ViolationColumnCount);
    m_violations->setHeaderLabels({tr("Leaf dims"), tr("Dims"), tr("Where (model code)"), tr("Violation")});
    m_violations->setRootIsDecorated(false);
    // Long lines wrap within their column (rows grow) rather than being cut.
    m_violations->setItemDelegate(new WrappingItemDelegate(m_violations));
    // The violation's text takes the width the leaf dims and Dims leave.
    m_violations->header()->setStretchLastSection(true);
    m_violations->header()->setMinimumSectionSize(60);
    m_fixes->setObjectName(QStringLiteral("fixesView"));
    m_fixes->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_apply->setObjectName(QStringLiteral("applyFixesButton"));
    m_apply->setToolTip(tr("Apply the ticked fixes to the constraints (one undoable step)"));
    m_reexport->setObjectName(QStringLiteral("reexportButton"));
    m_reexport->setToolTip(tr("Export again with the document's current constraints and model"));
    m_fixOutcome->setObjectName(QStringLiteral("fixOutcome"));
    m_fixOutcome->setWordWrap(true);
    WrappingLabel::neverWidens(m_fixOutcome);
    m_fixOutcome->hide();
    m_advice->setObjectName(QStringLiteral("failureAdvice"));
    m_advice->setWordWrap(true);
    WrappingLabel::neverWidens(m_advice);
    m_advice->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_advice->hide();
    m_exampleAdvice = new QLabel;
    m_exampleAdvice->setObjectName(QStringLiteral("exampleCallAdvice"));
    m_exampleAdvice->setWordWrap(true);
    WrappingLabel::neverWidens(m_exampleAdvice);
    m_exampleAdvice->hide();
    m_useExample = new QPushButton;
    m_useExample->setObjectName(QStringLiteral("useExampleCallButton"));
    m_useExample->hide();
    connect(m_useExample, &QPushButton::clicked, this, [this] {
        if (m_proposedCall >= 0)
            emit useExampleCallRequested(m_proposedCall);
    });
    m_details->setObjectName(QStringLiteral("failureDetails"));
    m_details->setReadOnly(true);
    m_details->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_details->setLineWrapMode(QPlainTextEdit::NoWrap);
    connect(m_apply, &QPushButton::clicked, this, [this] { emit applyFixesRequested(checkedFixes()); });
    connect(m_fixes, &QListWidget::itemChanged, this, &ExportResultView::updateApplyButton);
    connect(m_reexport, &QPushButton::clicked, this, &ExportResultView::reexportRequested);

    m_fixesBox->setObjectName(QStringLiteral("fixesBox"));
    auto *fixesLayout = new QVBoxLayout(m_fixesBox);
    fixesLayout->setContentsMargins(0, 0, 0, 0);
    fixesLayout->addWidget(new QLabel(tr("Suggested fixes (torch):")));
    fixesLayout->addWidget(m_fixes, 1);
    fixesLayout->addWidget(m_apply, 0, Qt::AlignLeft);
    fixesLayout->addWidget(m_fixOutcome);
    // Better than fixes made from a call with sizes 0 or 1: another example call.
    fixesLayout->addWidget(m_exampleAdvice);
    fixesLayout->addWidget(m_useExample, 0, Qt::AlignLeft);

    m_findings->setObjectName(QStringLiteral("failureFindings"));
    m_findings->addWidget(m_violations);
    m_findings->addWidget(m_fixesBox);
    m_findings->setStretchFactor(0, 3);
    m_findings->setStretchFactor(1, 2);
    // What to do, and Re-export: under every kind of failure (a model import error
    // has no violations and no fixes, only this and the traceback).
    auto *action = new QWidget;
    auto *actionLayout = new QHBoxLayout(action);
    actionLayout->setContentsMargins(0, 0, 0, 0);
    actionLayout->addWidget(m_advice, 1);
    actionLayout->addWidget(m_reexport, 0, Qt::AlignRight | Qt::AlignTop);
    auto *split = new QSplitter(Qt::Vertical);
    split->addWidget(m_findings);
    split->addWidget(action);
    split->addWidget(m_details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(2, 2);
    return split;
}

bool ExportResultView::showsFailure() const { return m_pages->currentWidget() == m_failurePage; }

void ExportResultView::clear()
{
    m_selected = -1;
    m_programsModel->clear();
    m_programsView->hide();
    m_unservedBox->hide();
    m_pages->setCurrentIndex(0);
    m_program->clear();
    m_verification->clear();
    m_heldOut->setReplay({});
    m_servedRanges->clear();
    m_violations->clear();
    m_fixes->clear();
    m_details->clear();
    m_fixOutcome->hide();
    m_advice->clear();
    m_advice->hide();
    showExampleCallAdvice({});
}

void ExportResultView::showExampleCallAdvice(const ExampleCallAdvice &advice)
{
    m_proposedCall = advice.proposedCall;
    m_exampleAdvice->setText(advice.text());
    m_exampleAdvice->setVisible(advice.isValid());
    m_useExample->setText(tr("Use Call %1 and Re-export").arg(advice.proposedCall));
    m_useExample->setToolTip(tr("Sets the export options' example call to call %1 and exports again; the fixes "
                                "above are not applied")
                                 .arg(advice.proposedCall));
    m_useExample->setVisible(advice.isValid());
}

void ExportResultView::showResult(const ExportResult &result, const std::optional<Pt2Program> &program,
                                  const std::optional<Pt2DimMapping> &mapping, const QString &programError)
{
    m_fixOutcome->hide();
    m_appliedFixes.clear();
    m_unappliedFixes.clear();
    if (!result.ok && !result.exported) {
        showFailure(result.failure);
        return;
    }
    setCallsShown(true);
    m_verification->setVerification(result.verification, result.exampleCall, m_results->servedElsewhere(m_selected));
    m_verificationView->resizeColumnsToContents();
    if (program)
        m_program->setProgram(*program, mapping);
    else
        m_program->clear();
    const int accepted = m_verification->acceptedCount();
    QString text;
    if (result.ok)
        text = verdict(m_headline, true, tr("Exported"))
            + tr(" %1 on %2 (%3) — every captured call replays (%4 of %5).")
                   .arg(result.output.toHtmlEscaped(), result.device, result.strict ? tr("strict") : tr("non-strict"))
                   .arg(accepted)
                   .arg(result.verification.size());
    else
        text = verdict(m_headline, false, tr("Exported, but the program rejects captured calls"))
            + tr(" (%1 of %2 accepted): %3")
                   .arg(accepted)
                   .arg(result.verification.size())
                   .arg(result.failure.message.toHtmlEscaped());
    if (!programError.isEmpty())
        text += QStringLiteral("<br>") + tr("Cannot read the .pt2 back: %1").arg(programError.toHtmlEscaped());
    m_headline->setText(text);
    m_pages->setCurrentIndex(1);
    refreshFilter();
}

// Every program's probed Dims in one table, named as the programs table names them;
// the tab is there only when the export probed.
void ExportResultView::showServedRanges(const PhasedExportOutcome &outcome)
{
    QVector<ServedRangesModel::ProgramProbes> programs;
    for (int i = 0; i < outcome.programs.size(); ++i) {
        const RangeProbes &probes = outcome.programs.at(i).result.probes;
        if (probes.present)
            programs.append({outcome.programText(i, true), probes});
    }
    m_servedRanges->setPrograms(programs);
    m_servedRangesView->resizeColumnsToContents();
    m_callTabs->setTabVisible(m_callTabs->indexOf(m_servedRangesView), !programs.isEmpty());
}

void ExportResultView::showOutcome()
{
    const PhasedExportOutcome &outcome = m_results->outcome();
    m_selected = -1;
    m_programsModel->setPrograms(outcome.programs);
    m_heldOut->setReplay(outcome.heldOut);
    m_callTabs->setTabVisible(m_callTabs->indexOf(m_heldOut), true);
    showServedRanges(outcome);
    if (outcome.cancelled && outcome.programs.isEmpty()) {
        showCancelled();
        return;
    }
    if (outcome.programs.isEmpty()) {
        m_programsView->hide();
        m_unservedBox->hide();
        showResult(outcome.firstAttempt, std::nullopt, std::nullopt, QString());
        showFixPreviews(m_results->fixPreviews());
        showExampleCallAdvice(m_results->exampleCallAdvice());
        return;
    }
    bool fixed = false;
    for (const ExportedProgram &p : outcome.programs)
        fixed = fixed || !p.appliedFixes.isEmpty();
    // One program for every call, exported as the constraints were: nothing to list.
    m_programsView->setVisible(outcome.programs.size() > 1 || !outcome.unserved.isEmpty() || fixed);
    m_programsView->resizeColumnsToContents();
    showUnservedAdvice();
    selectProgram(0);
}

// The first export of the document cancelled: nothing failed and nothing was made,
// so no failure page and no failure red (issue 28, problem 7).
void ExportResultView::showCancelled()
{
    clear();
    m_headline->setText(tr("<b>Cancelled</b> — nothing exported yet. Export runs again with a fresh worker."));
}

void ExportResultView::selectProgram(int row)
{
    const PhasedExportOutcome &outcome = m_results->outcome();
    if (row < 0 || row >= outcome.programs.size())
        return;
    m_selected = row;
    const ExportedProgram &p = outcome.programs.at(row);
    const ProgramReadBack &back = m_results->readBacks().at(row);
    showResult(p.result, back.program, back.mapping, back.error);
    if (outcome.programs.size() > 1 || !outcome.unserved.isEmpty())
        m_headline->setText(outcomeHeadline());
    const QModelIndex index = m_programsModel->index(row, 0);
    if (m_programsView->selectionModel()->currentIndex().row() != row)
        m_programsView->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect
                                                                     | QItemSelectionModel::Rows);
}

// Several programs, or calls none serves: what the export delivered as a whole, and
// which program is shown.
QString ExportResultView::outcomeHeadline() const
{
    const PhasedExportOutcome &outcome = m_results->outcome();
    const ExportedProgram &shown = outcome.programs.at(m_selected);
    QString text = outcome.servesEveryCall()
                       ? verdict(m_headline, true, tr("Exported %n program(s)", nullptr, int(outcome.programs.size())))
                       : verdict(m_headline, false, tr("Exported %n program(s), but not every captured call is served",
                                                       nullptr, int(outcome.programs.size())));
    text += QStringLiteral(" — ") + outcome.summary().toHtmlEscaped() + QLatin1Char('.');
    if (!outcome.unserved.isEmpty() && !outcome.firstAttempt.failure.message.isEmpty())
        text += QStringLiteral("<br>") + tr("The program for every call failed: %1")
                                             .arg(outcome.firstAttempt.failure.message.toHtmlEscaped());
    text += QStringLiteral("<br>") + tr("Shown: %1, serving calls %2 (%3).")
                                         .arg(shown.result.output.toHtmlEscaped(), shown.callsText().toHtmlEscaped(),
                                              shown.description.toHtmlEscaped());
    // The continuation program (issue 27 item 2): its rows are calls the worker made.
    if (!shown.synthesized.isEmpty())
        text += QLatin1Char(' ') + tr("Its verification rows are those synthesized calls, not captured calls.");
    return text;
}

// A .pt2 opened on its own: its programs, without the captured calls' pane, which has
// nothing to show (issue 28 problem 10: an empty table whose first column header read
// "xported prograr").
void ExportResultView::showPrograms(const QVector<Pt2Program> &programs)
{
    const Pt2Program &program = programs.first();
    setCallsShown(false);
    m_selected = -1;
    m_programsModel->clear();
    m_programsView->hide();
    m_unservedBox->hide();
    m_fixOutcome->hide();
    m_verification->clear();
    // A program alone has no captured calls to replay a second capture beside.
    m_heldOut->setReplay({});
    m_callTabs->setTabVisible(m_callTabs->indexOf(m_heldOut), false);
    m_servedRanges->clear();
    m_callTabs->setTabVisible(m_callTabs->indexOf(m_servedRangesView), false);
    m_program->setPrograms(programs);
    QString text = tr("<b>%1</b> opened on its own: no constraints or captured calls to compare with.")
                       .arg(program.filePath.toHtmlEscaped());
    if (programs.size() > 1)
        text += QLatin1Char(' ') + tr("It holds %n programs, a tab each.", nullptr, int(programs.size()));
    if (program.recordedDimNames.isEmpty())
        text += QLatin1Char(' ') + tr("Its sizes keep torch's symbols: the file records no Dim names.");
    m_headline->setText(text);
    m_pages->setCurrentIndex(1);
    refreshFilter();
}

// The success page's panes under the program (the captured calls replayed) are shown
// for an export's result, not for a program alone.
void ExportResultView::setCallsShown(bool shown)
{
    auto *split = qobject_cast<QSplitter *>(m_program->parentWidget());
    for (int i = 0; split && i < split->count(); ++i)
        if (split->widget(i) != m_program)
            split->widget(i)->setVisible(shown);
}

// torch's line with its input sources (`L['args'][1]['input_ids'].size()[1]`) written
// as the leaf dims they are (`input_ids dim 1`).
static QString readableViolation(const WorkerViolation &v)
{
    QString text = v.text;
    for (const ViolationSource &s : v.sources)
        if (!s.path.isEmpty() && !s.source.isEmpty())
            text.replace(s.source, QStringLiteral("%1 dim %2").arg(s.path).arg(s.dim));
    return text;
}

void ExportResultView::showFixPreviews(const QVector<FixPreview> &previews)
{
    int breaking = 0;
    for (int i = 0; i < previews.size() && i < m_fixes->count(); ++i) {
        const FixPreview &p = previews.at(i);
        QListWidgetItem *item = m_fixes->item(i);
        if (item->data(Qt::UserRole).toString() != p.line)
            continue;
        QStringList text{p.line};
        QStringList tip{p.line};
        if (!p.causeText().isEmpty()) {
            text << tr("    because %1").arg(p.causeText());
            for (const ShapeExplanation &e : p.causes)
                tip << e.toText();
        }
        if (!p.warningText().isEmpty()) {
            ++breaking;
            text << QStringLiteral("    ⚠ ") + p.warningText();
            tip << p.warningText();
            item->setIcon(style()->standardIcon(QStyle::SP_MessageBoxWarning));
            // Applied only when the user ticks it: the page flags it as breaking
            // (issue 28, problem 6).
            item->setCheckState(Qt::Unchecked);
        }
        item->setText(text.join(QLatin1Char('\n')));
        item->setToolTip(tip.join(QLatin1Char('\n')));
    }
    if (breaking > 0)
        m_apply->setToolTip(tr("Apply the ticked fixes to the constraints (one undoable step). "
                               "%n of them would break captured calls or cannot be applied: they are not ticked.",
                               nullptr, breaking));
    updateApplyButton();
}

QStringList ExportResultView::checkedFixes() const
{
    QStringList fixes;
    for (int i = 0; i < m_fixes->count(); ++i)
        if (m_fixes->item(i)->checkState() == Qt::Checked)
            fixes << m_fixes->item(i)->data(Qt::UserRole).toString();
    return fixes;
}

void ExportResultView::updateApplyButton()
{
    const int ticked = int(checkedFixes().size());
    m_apply->setText(ticked == m_fixes->count() || ticked == 0 ? tr("Apply Fixes")
                                                               : tr("Apply %1 of %2 Fixes").arg(ticked).arg(m_fixes->count()));
    m_apply->setEnabled(ticked > 0 && !m_fixesApplied);
}

void ExportResultView::showFailure(const WorkerFailure &failure)
{
    showExampleCallAdvice({}); // showOutcome() shows the results' one for this failure
    m_violations->clear();
    m_fixes->clear();
    for (const WorkerViolation &v : failure.violations)
        addViolation(v);
    fitViolationColumns();
    m_violations->setVisible(!failure.violations.isEmpty());
    const QSignalBlocker quiet(m_fixes); // itemChanged while the list fills
    for (const QString &fix : failure.fixes) {
        auto *item = new QListWidgetItem(fix, m_fixes);
        item->setData(Qt::UserRole, fix); // the fix line itself; the text grows a preview
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Qt::Checked);
    }
    m_fixesApplied = false;
    updateApplyButton();
    m_apply->setToolTip(failure.hasFixes() ? tr("Apply the ticked fixes to the constraints (one undoable step)")
                                           : tr("torch suggested no fixes for this failure"));
    // No fixes, no box: an empty "Suggested fixes" list reads as "torch has none yet".
    m_fixesBox->setVisible(failure.hasFixes());
    m_findings->setVisible(!failure.violations.isEmpty() || failure.hasFixes());
    const QString advice = FailureAdvice::forFailure(failure);
    m_advice->setText(advice.isEmpty() ? QString() : tr("What to do: %1").arg(advice));
    m_advice->setVisible(!advice.isEmpty());

    QStringList details;
    if (!failure.hint.isEmpty())
        details << tr("What it means: %1").arg(failure.hint);
    if (!failure.expression.isEmpty())
        details << tr("Guarded expression: %1").arg(failure.expression);
    if (!failure.typeName.isEmpty())
        details << tr("Type: %1").arg(failure.typeName);
    if (!failure.path.isEmpty())
        details << tr("Where: %1").arg(failure.path);
    if (failure.source.isValid())
        details << tr("Source: %1:%2 in %3\n    %4")
                       .arg(failure.source.file)
                       .arg(failure.source.line)
                       .arg(failure.source.function, failure.source.code);
    if (!failure.traceback.isEmpty()) {
        // Python's text has its own heading ("Traceback (most recent call last):"); ours
        // is only for a traceback without one (an exception with no frames).
        const QString traceback = failure.traceback.trimmed();
        details << (traceback.startsWith(QLatin1String("Traceback")) ? traceback : tr("Traceback:\n%1").arg(traceback));
    }
    if (!failure.raw.isEmpty() && failure.raw != failure.message)
        details << tr("torch's message:\n%1").arg(failure.raw.trimmed());
    m_details->setPlainText(details.join(QStringLiteral("\n\n")));

    m_headline->setText(verdict(m_headline, false, tr("Export failed")) + tr(" (%1): %2")
                            .arg(failure.kind.toHtmlEscaped(), failure.message.toHtmlEscaped()));
    m_pages->setCurrentIndex(2);
    refreshFilter();
}

void ExportResultView::addViolation(const WorkerViolation &v)
{
    const QString where = v.source.isValid() ? v.source.toText() : QString();
    const QString text = readableViolation(v);
    auto *item = new QTreeWidgetItem(m_violations);
    item->setText(LeafDimsColumn, v.leafDimsText());
    item->setText(DimsColumn, v.dims.join(QStringLiteral(", ")));
    item->setText(WhereColumn, where);
    item->setText(ViolationColumn, text);
    // Cells elide in a narrow dock: each tooltip has the whole text.
    item->setToolTip(LeafDimsColumn, item->text(LeafDimsColumn).replace(QStringLiteral(", "), QStringLiteral("\n")));
    item->setToolTip(DimsColumn, item->text(DimsColumn));
    item->setToolTip(WhereColumn, where);
    item->setToolTip(ViolationColumn, where.isEmpty() ? text : tr("%1\n\nSpecialized at %2").arg(text, where));
    item->setData(0, Qt::UserRole, v.kind);
}

// Leaf dims, Dims and Where as wide as their text up to a third of the view each; the
// violation's text (the last section) stretches over the rest.
void ExportResultView::fitViolationColumns()
{
    // No model line for any violation (torch before 2.8, non-strict): no empty column.
    bool anyWhere = false;
    for (int i = 0; i < m_violations->topLevelItemCount(); ++i)
        anyWhere = anyWhere || !m_violations->topLevelItem(i)->text(WhereColumn).isEmpty();
    m_violations->setColumnHidden(WhereColumn, !anyWhere);
    // Measured on one line: the wrapping delegate would measure at the current width.
    const int cap = std::max(160, m_violations->viewport()->width() / 3);
    const QFontMetrics metrics = m_violations->fontMetrics();
    const int margin = 2 * m_violations->style()->pixelMetric(QStyle::PM_FocusFrameHMargin) + 12;
    for (int column : {int(LeafDimsColumn), int(DimsColumn), int(WhereColumn)}) {
        int width = metrics.horizontalAdvance(m_violations->headerItem()->text(column));
        for (int i = 0; i < m_violations->topLevelItemCount(); ++i)
            width = std::max(width, metrics.horizontalAdvance(m_violations->topLevelItem(i)->text(column)));
        m_violations->setColumnWidth(column, std::min(width + margin, cap));
    }
    // Row heights follow the new widths (wrapped text).
    m_violations->doItemsLayout();
}

void ExportResultView::showFixOutcome(const QStringList &applied, const QStringList &unapplied)
{
    m_appliedFixes = applied;
    m_unappliedFixes = unapplied;
    showFixText(false);
}

void ExportResultView::showFixesUndone(bool undone)
{
    if (!m_appliedFixes.isEmpty()) // else another result replaced the one they were applied from
        showFixText(undone);
}

void ExportResultView::showFixText(bool undone)
{
    const QString fixes = m_appliedFixes.join(QStringLiteral("; "));
    QString text;
    if (undone)
        text = tr("Undone: %1. The constraints are as they were before Apply.").arg(fixes);
    else
        text = m_appliedFixes.isEmpty() ? tr("No fix applied.") : tr("Applied: %1.").arg(fixes);
    if (!undone && !m_unappliedFixes.isEmpty())
        text += QLatin1Char('\n') + tr("Could not apply:\n%1").arg(m_unappliedFixes.join(QLatin1Char('\n')));
    if (!undone && !m_appliedFixes.isEmpty())
        text += QLatin1Char('\n') + tr("Re-export to check the new constraints.");
    m_fixOutcome->setText(text);
    WarningColour::apply(m_fixOutcome, !undone && !m_unappliedFixes.isEmpty());
    m_fixOutcome->show();
    m_fixesApplied = !undone && !m_appliedFixes.isEmpty();
    updateApplyButton();
}

} // namespace dimscope
