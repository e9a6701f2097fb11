// SPDX-License-Identifier: GPL-3.0-or-later
#include "exportoptionsdialog.h"

#include "document/projectdocument.h"
#include "spec/examplecall.h"
#include "export/exporthints.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QStyle>
#include <QTreeWidget>

#include <algorithm>

namespace dimscope {

ExportOptionsDialog::ExportOptionsDialog(const ProjectDocument *document, QWidget *parent)
    : QDialog(parent), m_initial(document->exportOptions()), m_example(new QComboBox(this)), m_strict(new QCheckBox(this)),
      m_fixLoop(new QCheckBox(this)), m_separatePrograms(new QCheckBox(this)), m_mergeHints(new QLabel(this)),
      m_calls(new QTreeWidget(this))
{
    setObjectName(QStringLiteral("exportOptionsDialog"));
    setWindowTitle(tr("Export Options"));
    m_example->setObjectName(QStringLiteral("exampleCall"));
    m_strict->setObjectName(QStringLiteral("strict"));

    const ShapeTable &table = document->table();
    const int automatic = document->hasCapture() ? chooseExampleCall(table, document->constraints()) : 0;
    m_example->addItem(tr("Automatic (now call %1)").arg(automatic), -1);
    for (int c = 0; c < table.callCount(); ++c)
        m_example->addItem(tr("Call %1").arg(c), c);
    m_example->setCurrentIndex(qMax(0, m_example->findData(m_initial.exampleCall)));
    m_example->setToolTip(tr("The captured call whose inputs torch.export traces with. Sizes of 0 or 1 in it "
                             "are specialized, so the automatic choice avoids them."));
    m_strict->setText(tr("Strict mode (TorchDynamo tracing)"));
    m_strict->setChecked(m_initial.strict);
    m_fixLoop->setObjectName(QStringLiteral("fixLoop"));
    m_fixLoop->setText(tr("Apply torch's fixes and export a program per phase when one cannot serve every call"));
    m_fixLoop->setToolTip(tr("On: Export retries with torch's suggested fixes applied to a copy of the constraints, "
                             "then exports the calls that program does not serve (e.g. generate()'s prefill) "
                             "as further programs of OUT.pt2. Your constraints are not changed.\n"
                             "Off: one export with the constraints as they are; torch's fixes are offered."));
    m_fixLoop->setChecked(m_initial.fixLoop);
    m_separatePrograms->setObjectName(QStringLiteral("separatePrograms"));
    m_separatePrograms->setText(tr("One file per program (OUT.pt2, OUT.phase2.pt2, …)"));
    m_separatePrograms->setToolTip(tr("Off: the programs go into one PT2 archive, OUT.pt2 (programs model, phase2, …), "
                                      "with the model's weights stored once (torch 2.8 or later).\n"
                                      "On: each program in a file of its own, each with all the weights, "
                                      "like dimscope-cli export --separate-programs."));
    m_separatePrograms->setChecked(m_initial.separatePrograms);
    m_separatePrograms->setEnabled(m_fixLoop->isChecked());
    connect(m_fixLoop, &QCheckBox::toggled, m_separatePrograms, &QWidget::setEnabled);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *form = new QFormLayout(this);
    form->addRow(tr("Example call:"), m_example);
    form->addRow(QString(), m_strict);
    form->addRow(QString(), m_fixLoop);
    form->addRow(QString(), m_separatePrograms);
    addHints(document);
    form->addRow(m_mergeHints);
    form->addRow(tr("Captured calls:"), m_calls);
    form->addRow(buttons);
    resize(sizeHint().expandedTo(QSize(720, 420)));
}

void ExportOptionsDialog::addHints(const ProjectDocument *document)
{
    const ExportHints hints = document->exportHints();
    m_automatic = hints.automaticCall();
    QStringList merges;
    for (const MergeCandidate &m : hints.mergeCandidates())
        merges << tr("<b>%1</b> and <b>%2</b> are equal in every captured call that has both (%3 calls): "
                     "perhaps one Dim (Dims panel: Merge).")
                      .arg(m.first.toHtmlEscaped(), m.second.toHtmlEscaped())
                      .arg(m.calls);
    m_mergeHints->setObjectName(QStringLiteral("mergeHints"));
    m_mergeHints->setWordWrap(true);
    m_mergeHints->setText(merges.join(QStringLiteral("<br>")));
    m_mergeHints->setVisible(!merges.isEmpty());

    m_calls->setObjectName(QStringLiteral("exampleCalls"));
    m_calls->setRootIsDecorated(false);
    m_calls->setHeaderLabels({tr("Call"), tr("Dims in it"), tr("torch specializes")});
    m_calls->setToolTip(tr("Each captured call as the example input. A Dim of size 0 or 1 in the example call "
                           "becomes a constant (or fails the export). Click a call to use it."));
    for (const ExampleCallHint &h : hints.calls()) {
        auto *item = new QTreeWidgetItem(m_calls, {tr("Call %1").arg(h.call), h.sizesText(), h.zeroOrOne.join(QStringLiteral(", "))});
        item->setData(0, Qt::UserRole, h.call);
        item->setToolTip(1, h.sizesText());
        if (!h.zeroOrOne.isEmpty()) {
            item->setIcon(2, style()->standardIcon(QStyle::SP_MessageBoxWarning));
            item->setToolTip(2, tr("torch specializes a size of 0 or 1: exported from this call, %1 would be a constant")
                                    .arg(h.zeroOrOne.join(QStringLiteral(", "))));
        }
    }
    m_calls->header()->setStretchLastSection(true);
    m_calls->resizeColumnToContents(1);
    m_calls->setColumnWidth(1, std::max(m_calls->columnWidth(1), 200));
    connect(m_calls, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem *item) {
        m_example->setCurrentIndex(m_example->findData(item->data(0, Qt::UserRole)));
    });
    connect(m_example, &QComboBox::currentIndexChanged, this, &ExportOptionsDialog::markExampleCall);
    markExampleCall();
}

void ExportOptionsDialog::markExampleCall()
{
    const int chosen = m_example->currentData().toInt();
    const int example = chosen < 0 ? m_automatic : chosen;
    for (int i = 0; i < m_calls->topLevelItemCount(); ++i) {
        QTreeWidgetItem *item = m_calls->topLevelItem(i);
        const int call = item->data(0, Qt::UserRole).toInt();
        QFont font = item->font(0);
        font.setBold(call == example);
        item->setFont(0, font);
        item->setText(0, call == example ? tr("Call %1 (example)").arg(call) : tr("Call %1").arg(call));
    }
    // Sized after the marking: the bold "Call N (example)" is the column's widest text
    // (sized before it, the example call read "Cal…").
    m_calls->resizeColumnToContents(0);
}

ExportOptions ExportOptionsDialog::options() const
{
    ExportOptions o = m_initial; // the device is chosen by the Export action
    o.exampleCall = m_example->currentData().toInt();
    o.strict = m_strict->isChecked();
    o.fixLoop = m_fixLoop->isChecked();
    o.separatePrograms = m_separatePrograms->isChecked();
    return o;
}

} // namespace dimscope
