// SPDX-License-Identifier: GPL-3.0-or-later
#include "exportoptionsdialog.h"

#include "projectdocument.h"
#include "shapes/examplecall.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>

namespace dimscope {

ExportOptionsDialog::ExportOptionsDialog(const ProjectDocument *document, QWidget *parent)
    : QDialog(parent), m_initial(document->exportOptions()), m_example(new QComboBox(this)), m_strict(new QCheckBox(this)),
      m_fixLoop(new QCheckBox(this))
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
                             "into OUT.phaseN.pt2. Your constraints are not changed.\n"
                             "Off: one export with the constraints as they are; torch's fixes are offered."));
    m_fixLoop->setChecked(m_initial.fixLoop);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *form = new QFormLayout(this);
    form->addRow(tr("Example call:"), m_example);
    form->addRow(QString(), m_strict);
    form->addRow(QString(), m_fixLoop);
    form->addRow(buttons);
}

ExportOptions ExportOptionsDialog::options() const
{
    ExportOptions o = m_initial; // the device is chosen by the Export action
    o.exampleCall = m_example->currentData().toInt();
    o.strict = m_strict->isChecked();
    o.fixLoop = m_fixLoop->isChecked();
    return o;
}

} // namespace dimscope
