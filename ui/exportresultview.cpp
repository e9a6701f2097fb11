// SPDX-License-Identifier: GPL-3.0-or-later
#include "exportresultview.h"

#include "export/exportphases.h"
#include "models/programsmodel.h"
#include "models/verificationmodel.h"
#include "pt2programview.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace dimscope {

ExportResultView::ExportResultView(QWidget *parent)
    : QWidget(parent), m_headline(new QLabel(this)), m_pages(new QStackedWidget(this)),
      m_programsModel(new ProgramsModel(this)), m_programsView(new QTableView(this)), m_program(new Pt2ProgramView),
      m_verification(new VerificationModel(this)), m_verificationView(new QTableView), m_violations(new QTreeWidget),
      m_fixes(new QListWidget), m_apply(new QPushButton(tr("Apply fixes"))), m_reexport(new QPushButton(tr("Re-export"))),
      m_fixOutcome(new QLabel), m_details(new QPlainTextEdit)
{
    m_headline->setObjectName(QStringLiteral("exportHeadline"));
    m_headline->setWordWrap(true);
    m_headline->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_headline->setText(tr("No export yet. Export > Export on CPU runs torch.export with the current constraints."));
    m_programsView->setObjectName(QStringLiteral("programsTable"));
    m_programsView->setModel(m_programsModel);
    m_programsView->verticalHeader()->hide();
    m_programsView->horizontalHeader()->setStretchLastSection(true);
    m_programsView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_programsView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_programsView->setMaximumHeight(m_programsView->fontMetrics().height() * 7);
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
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_headline);
    layout->addWidget(m_programsView);
    layout->addWidget(m_pages, 1);
}

QWidget *ExportResultView::createSuccessPage()
{
    m_verificationView->setObjectName(QStringLiteral("verificationTable"));
    m_verificationView->setModel(m_verification);
    m_verificationView->verticalHeader()->hide();
    m_verificationView->horizontalHeader()->setStretchLastSection(true);
    m_verificationView->setSelectionBehavior(QAbstractItemView::SelectRows);
    auto *split = new QSplitter(Qt::Vertical);
    split->addWidget(m_program);
    split->addWidget(m_verificationView);
    return split;
}

QWidget *ExportResultView::createFailurePage()
{
    m_violations->setObjectName(QStringLiteral("violationsView"));
    m_violations->setHeaderLabels({tr("Violation"), tr("Dims"), tr("Leaf dims"), tr("Where (model code)")});
    m_violations->setRootIsDecorated(false);
    m_violations->setWordWrap(true);
    m_fixes->setObjectName(QStringLiteral("fixesView"));
    m_fixes->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_apply->setObjectName(QStringLiteral("applyFixesButton"));
    m_apply->setToolTip(tr("Apply torch's suggested fixes to the constraints (one undoable step)"));
    m_reexport->setObjectName(QStringLiteral("reexportButton"));
    m_fixOutcome->setObjectName(QStringLiteral("fixOutcome"));
    m_fixOutcome->setWordWrap(true);
    m_fixOutcome->hide();
    m_details->setObjectName(QStringLiteral("failureDetails"));
    m_details->setReadOnly(true);
    m_details->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_details->setLineWrapMode(QPlainTextEdit::NoWrap);
    connect(m_apply, &QPushButton::clicked, this, &ExportResultView::applyFixesRequested);
    connect(m_reexport, &QPushButton::clicked, this, &ExportResultView::reexportRequested);

    auto *fixes = new QWidget;
    auto *fixesLayout = new QVBoxLayout(fixes);
    fixesLayout->setContentsMargins(0, 0, 0, 0);
    fixesLayout->addWidget(new QLabel(tr("Suggested fixes (torch):")));
    fixesLayout->addWidget(m_fixes, 1);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_apply);
    buttons->addWidget(m_reexport);
    buttons->addStretch(1);
    fixesLayout->addLayout(buttons);
    fixesLayout->addWidget(m_fixOutcome);

    auto *top = new QSplitter(Qt::Horizontal);
    top->addWidget(m_violations);
    top->addWidget(fixes);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);
    auto *split = new QSplitter(Qt::Vertical);
    split->addWidget(top);
    split->addWidget(m_details);
    return split;
}

bool ExportResultView::showsFailure() const { return m_pages->currentWidget() == m_failurePage; }

void ExportResultView::clear()
{
    m_outcome = {};
    m_readBacks.clear();
    m_selected = -1;
    m_programsModel->clear();
    m_programsView->hide();
    m_pages->setCurrentIndex(0);
    m_program->clear();
    m_verification->clear();
    m_violations->clear();
    m_fixes->clear();
    m_details->clear();
    m_fixOutcome->hide();
}

void ExportResultView::showResult(const ExportResult &result, const std::optional<Pt2Program> &program,
                                  const std::optional<Pt2DimMapping> &mapping, const QString &programError)
{
    m_fixOutcome->hide();
    if (!result.ok && !result.exported) {
        showFailure(result.failure);
        return;
    }
    m_verification->setVerification(result.verification, result.exampleCall);
    m_verificationView->resizeColumnsToContents();
    if (program)
        m_program->setProgram(*program, mapping);
    else
        m_program->clear();
    const int accepted = m_verification->acceptedCount();
    QString text;
    if (result.ok)
        text = tr("<b style='color:#1b7f2a'>Exported</b> %1 on %2 (%3) — every captured call replays (%4 of %5).")
                   .arg(result.output.toHtmlEscaped(), result.device, result.strict ? tr("strict") : tr("non-strict"))
                   .arg(accepted)
                   .arg(result.verification.size());
    else
        text = tr("<b style='color:#c0392b'>Exported, but the program rejects captured calls</b> (%1 of %2 accepted): %3")
                   .arg(accepted)
                   .arg(result.verification.size())
                   .arg(result.failure.message.toHtmlEscaped());
    if (!programError.isEmpty())
        text += QStringLiteral("<br>") + tr("Cannot read the .pt2 back: %1").arg(programError.toHtmlEscaped());
    m_headline->setText(text);
    m_pages->setCurrentIndex(1);
}

void ExportResultView::showOutcome(const PhasedExportOutcome &outcome, const QVector<ReadBack> &readBacks)
{
    m_outcome = outcome;
    m_readBacks = readBacks;
    m_readBacks.resize(outcome.programs.size());
    m_selected = -1;
    m_programsModel->setPrograms(outcome.programs);
    if (outcome.programs.isEmpty()) {
        m_programsView->hide();
        showResult(outcome.firstAttempt, std::nullopt, std::nullopt, QString());
        return;
    }
    bool fixed = false;
    for (const ExportedProgram &p : outcome.programs)
        fixed = fixed || !p.appliedFixes.isEmpty();
    // One program for every call, exported as the constraints were: nothing to list.
    m_programsView->setVisible(outcome.programs.size() > 1 || !outcome.unserved.isEmpty() || fixed);
    m_programsView->resizeColumnsToContents();
    selectProgram(0);
}

void ExportResultView::selectProgram(int row)
{
    if (row < 0 || row >= m_outcome.programs.size())
        return;
    m_selected = row;
    const ExportedProgram &p = m_outcome.programs.at(row);
    const ReadBack &back = m_readBacks.at(row);
    showResult(p.result, back.program, back.mapping, back.error);
    if (m_outcome.programs.size() > 1 || !m_outcome.unserved.isEmpty())
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
    const ExportedProgram &shown = m_outcome.programs.at(m_selected);
    QString text = m_outcome.servesEveryCall()
                       ? tr("<b style='color:#1b7f2a'>Exported %n program(s)</b>", nullptr, int(m_outcome.programs.size()))
                       : tr("<b style='color:#c0392b'>Exported %n program(s), but not every captured call is served</b>",
                            nullptr, int(m_outcome.programs.size()));
    text += QStringLiteral(" — ") + m_outcome.summary().toHtmlEscaped() + QLatin1Char('.');
    if (!m_outcome.unserved.isEmpty() && !m_outcome.firstAttempt.failure.message.isEmpty())
        text += QStringLiteral("<br>") + tr("The program for every call failed: %1")
                                             .arg(m_outcome.firstAttempt.failure.message.toHtmlEscaped());
    text += QStringLiteral("<br>") + tr("Shown: %1, serving calls %2 (%3).")
                                         .arg(shown.result.output.toHtmlEscaped(), ExportPhases::callsText(shown.calls),
                                              shown.description.toHtmlEscaped());
    return text;
}

void ExportResultView::showProgram(const Pt2Program &program)
{
    m_outcome = {};
    m_readBacks.clear();
    m_selected = -1;
    m_programsModel->clear();
    m_programsView->hide();
    m_fixOutcome->hide();
    m_verification->clear();
    m_program->setProgram(program);
    m_headline->setText(tr("<b>%1</b> opened on its own: no constraints or captured calls to compare with.")
                            .arg(program.filePath.toHtmlEscaped()));
    m_pages->setCurrentIndex(1);
}

static QString sourcesText(const WorkerViolation &v)
{
    QStringList parts;
    for (const ViolationSource &s : v.sources)
        parts << (s.path.isEmpty() ? s.source : QStringLiteral("%1[%2]").arg(s.path).arg(s.dim));
    return parts.join(QStringLiteral(", "));
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
        }
        item->setText(text.join(QLatin1Char('\n')));
        item->setToolTip(tip.join(QLatin1Char('\n')));
    }
    if (breaking > 0)
        m_apply->setToolTip(tr("Apply torch's suggested fixes to the constraints (one undoable step). "
                               "%n of them would break captured calls: see the warnings.", nullptr, breaking));
}

void ExportResultView::showFailure(const WorkerFailure &failure)
{
    m_violations->clear();
    m_fixes->clear();
    for (const WorkerViolation &v : failure.violations) {
        auto *item = new QTreeWidgetItem(m_violations, {v.text, v.dims.join(QStringLiteral(", ")), sourcesText(v),
                                                         v.source.isValid() ? v.source.toText() : QString()});
        item->setToolTip(0, v.source.isValid() ? tr("%1\n\nSpecialized at %2").arg(v.text, v.source.toText()) : v.text);
        item->setToolTip(3, v.source.toText());
        item->setData(0, Qt::UserRole, v.kind);
    }
    m_violations->resizeColumnToContents(1);
    m_violations->setVisible(!failure.violations.isEmpty());
    for (const QString &fix : failure.fixes) {
        auto *item = new QListWidgetItem(fix, m_fixes);
        item->setData(Qt::UserRole, fix); // the fix line itself; the text grows a preview
    }
    m_apply->setEnabled(failure.hasFixes());
    m_apply->setToolTip(failure.hasFixes() ? tr("Apply torch's suggested fixes to the constraints (one undoable step)")
                                           : tr("torch suggested no fixes for this failure"));

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
    if (!failure.traceback.isEmpty())
        details << tr("Traceback:\n%1").arg(failure.traceback.trimmed());
    if (!failure.raw.isEmpty() && failure.raw != failure.message)
        details << tr("torch's message:\n%1").arg(failure.raw.trimmed());
    m_details->setPlainText(details.join(QStringLiteral("\n\n")));

    m_headline->setText(tr("<b style='color:#c0392b'>Export failed</b> (%1): %2")
                            .arg(failure.kind.toHtmlEscaped(), failure.message.toHtmlEscaped()));
    m_pages->setCurrentIndex(2);
}

void ExportResultView::showFixOutcome(const QStringList &applied, const QStringList &unapplied)
{
    QString text = applied.isEmpty() ? tr("No fix applied.") : tr("Applied: %1.").arg(applied.join(QStringLiteral("; ")));
    if (!unapplied.isEmpty())
        text += QLatin1Char('\n') + tr("Could not apply:\n%1").arg(unapplied.join(QLatin1Char('\n')));
    text += QLatin1Char('\n') + tr("Re-export to check the new constraints.");
    m_fixOutcome->setText(text);
    m_fixOutcome->setStyleSheet(unapplied.isEmpty() ? QString() : QStringLiteral("color: #c0392b"));
    m_fixOutcome->show();
}

} // namespace dimscope
