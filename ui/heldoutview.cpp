// SPDX-License-Identifier: GPL-3.0-or-later
#include "heldoutview.h"

#include "models/heldoutmodel.h"
#include "wrappinglabel.h"

#include <QDir>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace dimscope {

HeldOutView::HeldOutView(QWidget *parent)
    : QWidget(parent), m_model(new HeldOutModel(this)), m_summary(new QLabel(this)),
      m_verify(new QPushButton(tr("Verify With Another Capture…"), this)), m_table(new QTableView(this))
{
    m_summary->setObjectName(QStringLiteral("heldOutSummary"));
    m_summary->setWordWrap(true);
    WrappingLabel::neverWidens(m_summary);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_verify->setObjectName(QStringLiteral("heldOutVerifyButton"));
    m_verify->setToolTip(tr("Choose a second capture of this model (other prompts, batch sizes, lengths) and export "
                            "again: its calls are replayed through the programs in the fresh interpreter that checks "
                            "them, as a user would run them"));
    connect(m_verify, &QPushButton::clicked, this, &HeldOutView::verifyRequested);
    m_table->setObjectName(QStringLiteral("heldOutTable"));
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 4, 0, 0);
    layout->addWidget(m_summary);
    layout->addWidget(m_verify, 0, Qt::AlignLeft);
    layout->addWidget(m_table, 1);
    setReplay({});
}

void HeldOutView::setReplay(const HeldOutReplay &replay)
{
    m_model->setReplay(replay);
    m_table->setVisible(!replay.calls.isEmpty());
    if (replay.isEmpty()) {
        m_summary->setText(tr("No held-out capture. A second recording of this model, with prompts, batch sizes and "
                              "lengths the captured calls do not have, shows which calls the programs will serve."));
    } else if (!replay.replayed()) {
        m_summary->setText(tr("%1 was not replayed: %2").arg(QDir::toNativeSeparators(replay.file), replay.skipped));
    } else {
        m_summary->setText(replay.summaryLines().join(QLatin1Char('\n')));
    }
    m_table->resizeColumnsToContents();
}

} // namespace dimscope
