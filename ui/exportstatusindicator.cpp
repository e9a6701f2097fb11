// SPDX-License-Identifier: GPL-3.0-or-later
#include "exportstatusindicator.h"

#include "document/exportprogress.h"
#include "elidedlabel.h"

#include <QHBoxLayout>
#include <QProgressBar>

namespace dimscope {

ExportStatusIndicator::ExportStatusIndicator(const ExportProgress *progress, QWidget *parent)
    : QWidget(parent), m_progress(progress), m_label(new ElidedLabel(Qt::ElideRight, this)), m_bar(new QProgressBar(this))
{
    setObjectName(QStringLiteral("statusExport"));
    m_label->setObjectName(QStringLiteral("statusExportText"));
    m_bar->setObjectName(QStringLiteral("statusExportProgress"));
    m_bar->setMaximumWidth(120);
    m_bar->setMaximumHeight(fontMetrics().height() + 4); // no taller than the status bar's text
    m_bar->setTextVisible(false);                        // the line says where it is
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_bar);
    connect(m_progress, &ExportProgress::changed, this, &ExportStatusIndicator::showProgress);
    showProgress();
}

void ExportStatusIndicator::showProgress()
{
    setVisible(m_progress->isRunning());
    if (!m_progress->isRunning())
        return;
    m_label->setFullText(m_progress->text());
    m_label->setFitToolTip(m_progress->detail());
    const int percent = m_progress->percent();
    m_bar->setRange(0, percent < 0 ? 0 : 100);
    m_bar->setValue(qMax(0, percent));
}

} // namespace dimscope
