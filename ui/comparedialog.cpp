// SPDX-License-Identifier: GPL-3.0-or-later
#include "comparedialog.h"

#include "compare/exportcomparison.h"
#include "document/exportresults.h"
#include "models/comparisonmodel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTreeView>
#include <QVBoxLayout>

namespace dimscope {

CompareDialog::CompareDialog(QWidget *parent)
    : QDialog(parent), m_model(new ComparisonModel(this)), m_a(new QComboBox), m_b(new QComboBox), m_pickers(new QWidget),
      m_differencesOnly(new QCheckBox(tr("&Differences only"))), m_view(new QTreeView), m_summary(new QLabel)
{
    setObjectName(QStringLiteral("compareDialog"));
    setWindowTitle(tr("Compare"));
    m_a->setObjectName(QStringLiteral("compareA"));
    m_b->setObjectName(QStringLiteral("compareB"));
    // Labels of records are long ("Export 3 (21:35:10): 2 programs, …"): they must not
    // set the dialog's width.
    for (QComboBox *box : {m_a, m_b}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(24);
    }
    m_differencesOnly->setObjectName(QStringLiteral("compareDifferencesOnly"));
    m_view->setObjectName(QStringLiteral("compareView"));
    m_view->setModel(m_model);
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->header()->setStretchLastSection(true);
    m_summary->setObjectName(QStringLiteral("compareSummary"));
    m_summary->setWordWrap(true);

    auto *pickers = new QFormLayout(m_pickers);
    pickers->setContentsMargins(0, 0, 0, 0);
    pickers->addRow(tr("&A:"), m_a);
    pickers->addRow(tr("&B:"), m_b);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_pickers);
    layout->addWidget(m_summary);
    layout->addWidget(m_differencesOnly);
    layout->addWidget(m_view, 1);
    layout->addWidget(buttons);
    resize(820, 480); // fits a 1366×768 laptop at 125 % (1093×614) with its frame

    connect(m_differencesOnly, &QCheckBox::toggled, this, [this](bool only) {
        m_model->setDifferencesOnly(only);
        m_view->expandAll();
    });
    connect(m_a, &QComboBox::activated, this, &CompareDialog::compareChosen);
    connect(m_b, &QComboBox::activated, this, &CompareDialog::compareChosen);
}

CompareDialog::~CompareDialog() = default;

void CompareDialog::showExports(const ExportResults *results)
{
    if (m_results != results) {
        if (m_results)
            disconnect(m_results, nullptr, this, nullptr);
        m_results = results;
        connect(results, &ExportResults::historyChanged, this, &CompareDialog::fillPickers);
    }
    setWindowTitle(tr("Compare Exports"));
    m_pickers->show();
    fillPickers();
}

// The history's records, newest last; the choice kept by record number where the
// record is still there, else A = the one before the last and B = the last.
void CompareDialog::fillPickers()
{
    const int chosenA = m_a->currentData().toInt(), chosenB = m_b->currentData().toInt();
    m_a->clear();
    m_b->clear();
    const QVector<ExportRecord> &history = m_results->history();
    for (const ExportRecord &record : history) {
        m_a->addItem(record.label(), record.number);
        m_b->addItem(record.label(), record.number);
    }
    const int n = int(history.size());
    const int a = m_a->findData(chosenA), b = m_b->findData(chosenB);
    m_a->setCurrentIndex(a >= 0 && chosenA != 0 ? a : std::max(0, n - 2));
    m_b->setCurrentIndex(b >= 0 && chosenB != 0 ? b : n - 1);
    compareChosen();
}

void CompareDialog::compareChosen()
{
    if (!m_results)
        return;
    const QVector<ExportRecord> &history = m_results->history();
    const int a = m_a->currentIndex(), b = m_b->currentIndex();
    if (a < 0 || b < 0 || a >= history.size() || b >= history.size()) {
        m_model->setComparison({});
        m_summary->setText(tr("Export at least twice to compare two results (the last %1 are kept).")
                               .arg(ExportResults::kHistorySize));
        return;
    }
    m_model->setComparison(ExportComparison::make(history.at(a), history.at(b)));
    m_view->expandAll();
    showSummary();
}

void CompareDialog::showComparison(const Comparison &comparison)
{
    if (m_results)
        disconnect(m_results, nullptr, this, nullptr);
    m_results = nullptr;
    m_pickers->hide();
    setWindowTitle(tr("Compare: %1 and %2").arg(comparison.titleA, comparison.titleB));
    m_model->setComparison(comparison);
    m_view->expandAll();
    showSummary();
}

void CompareDialog::showSummary()
{
    const Comparison &c = m_model->comparison();
    const int differ = c.differenceCount();
    m_summary->setText(differ == 0 ? tr("A and B are the same in everything compared here.")
                                   : tr("%n difference(s), marked %1.", nullptr, differ).arg(ComparisonModel::mark()));
    // The item column as wide as its texts up to a limit, then A and B share the rest.
    m_view->resizeColumnToContents(ComparisonModel::MarkColumn);
    m_view->resizeColumnToContents(ComparisonModel::ItemColumn);
    m_view->setColumnWidth(ComparisonModel::ItemColumn, std::min(260, m_view->columnWidth(ComparisonModel::ItemColumn)));
    m_view->setColumnWidth(ComparisonModel::AColumn, std::max(160, (m_view->viewport()->width() - 300) / 2));
}

} // namespace dimscope
