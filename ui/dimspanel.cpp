// SPDX-License-Identifier: GPL-3.0-or-later
#include "dimspanel.h"

#include "dimeditdelegate.h"
#include "models/dimsmodel.h"
#include "projectdocument.h"

#include <QAction>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QTableView>
#include <QToolBar>
#include <QVBoxLayout>

namespace dimscope {

DimsPanel::DimsPanel(ProjectDocument *document, QWidget *parent)
    : QWidget(parent), m_model(new DimsModel(document, this)), m_table(new QTableView(this)), m_problem(new QLabel(this))
{
    setObjectName(QStringLiteral("dimsPanel"));
    m_table->setObjectName(QStringLiteral("dimsTable"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed
                             | QAbstractItemView::AnyKeyPressed);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAlternatingRowColors(true);
    auto *delegate = new DimEditDelegate(this);
    m_table->setItemDelegate(delegate);

    m_problem->setObjectName(QStringLiteral("dimsProblem"));
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("QLabel { color: #c62828; }"));
    m_problem->hide();
    connect(delegate, &DimEditDelegate::editProblem, this, &DimsPanel::showProblem);
    connect(m_model, &DimsModel::editRejected, this, &DimsPanel::showProblem);

    auto *bar = new QToolBar(this);
    bar->setIconSize(QSize(16, 16));
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_add = bar->addAction(tr("Add"), this, [this] {
        QString name;
        const QString error = m_model->addDim(&name);
        showProblem(error);
        if (error.isEmpty()) {
            selectDim(name);
            m_table->edit(m_model->index(m_model->rowOf(name), DimsModel::NameColumn));
        }
    });
    m_add->setObjectName(QStringLiteral("actionAddDim"));
    m_add->setToolTip(tr("Add a root Dim (assign it to dimensions from the inputs tree)"));
    m_rename = bar->addAction(tr("Rename"), this, [this] {
        const int row = m_model->rowOf(currentDim());
        if (row >= 0)
            m_table->edit(m_model->index(row, DimsModel::NameColumn));
    });
    m_rename->setObjectName(QStringLiteral("actionRenameDim"));
    m_delete = bar->addAction(tr("Delete"), this, [this] {
        const QString name = currentDim();
        if (!name.isEmpty())
            showProblem(m_model->deleteDim(name));
    });
    m_delete->setObjectName(QStringLiteral("actionDeleteDim"));
    m_delete->setShortcut(QKeySequence::Delete);
    m_delete->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_rename->setShortcut(QKeySequence(Qt::Key_F2));
    m_rename->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_delete->setToolTip(tr("Delete the Dim; the dimensions using it become static"));
    m_merge = bar->addAction(tr("Merge…"), this, &DimsPanel::mergeSelected);
    m_merge->setObjectName(QStringLiteral("actionMergeDims"));
    m_merge->setToolTip(tr("Merge two Dims: every use of the second becomes the first"));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 0, 4, 4);
    layout->setSpacing(2);
    layout->addWidget(bar);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_problem);

    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this] {
        updateActions();
        emit dimSelected(currentDim());
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        m_table->resizeColumnsToContents();
        updateActions();
    });
    connect(document, &ProjectDocument::captureChanged, this, &DimsPanel::updateActions);
    updateActions();
}

DimsPanel::~DimsPanel() = default;

QString DimsPanel::currentDim() const
{
    const QModelIndex current = m_table->currentIndex();
    return current.isValid() ? m_model->dimName(current.row()) : QString();
}

void DimsPanel::selectDim(const QString &name)
{
    const int row = m_model->rowOf(name);
    if (row < 0)
        return;
    m_table->setCurrentIndex(m_model->index(row, DimsModel::NameColumn));
    m_table->selectRow(row);
}

void DimsPanel::showProblem(const QString &text)
{
    m_problem->setText(text);
    m_problem->setVisible(!text.isEmpty());
}

void DimsPanel::updateActions()
{
    const bool has = !currentDim().isEmpty();
    m_rename->setEnabled(has);
    m_delete->setEnabled(has);
    m_merge->setEnabled(has && m_model->rowCount() > 1);
    m_add->setEnabled(m_model->document()->hasCapture());
}

void DimsPanel::mergeSelected()
{
    QStringList selected;
    for (const QModelIndex &i : m_table->selectionModel()->selectedRows())
        selected.append(m_model->dimName(i.row()));
    QString keep = currentDim();
    QString drop;
    if (selected.size() == 2) {
        drop = selected.at(0) == keep ? selected.at(1) : selected.at(0);
    } else {
        QStringList others;
        for (int r = 0; r < m_model->rowCount(); ++r)
            if (m_model->dimName(r) != keep)
                others.append(m_model->dimName(r));
        bool ok = false;
        drop = QInputDialog::getItem(this, tr("Merge Dims"), tr("Merge into '%1' (its uses become '%1'):").arg(keep), others,
                                     0, false, &ok);
        if (!ok)
            return;
    }
    showProblem(m_model->mergeDims(keep, drop));
}

} // namespace dimscope
