// SPDX-License-Identifier: GPL-3.0-or-later
#include "tablefilter.h"

#include <QAbstractItemModel>
#include <QEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QTreeView>

namespace dimscope {

namespace {

void setRowHidden(QAbstractItemView *view, int row, bool hidden)
{
    if (auto *table = qobject_cast<QTableView *>(view))
        table->setRowHidden(row, hidden);
    else if (auto *tree = qobject_cast<QTreeView *>(view))
        tree->setRowHidden(row, QModelIndex(), hidden);
}

} // namespace

TableFilter::TableFilter(QWidget *scope, QWidget *parent)
    : QWidget(parent), m_scope(scope), m_field(new QLineEdit(this)), m_count(new QLabel(this))
{
    m_field->setObjectName(QStringLiteral("resultFilter"));
    m_field->setPlaceholderText(tr("Search the tables below"));
    m_field->setClearButtonEnabled(true);
    m_field->installEventFilter(this);
    m_count->setObjectName(QStringLiteral("resultFilterCount"));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_field, 1);
    layout->addWidget(m_count);
    connect(m_field, &QLineEdit::textChanged, this, &TableFilter::refresh);
    recount();
}

void TableFilter::addView(QAbstractItemView *view)
{
    m_views << view;
    QAbstractItemModel *model = view->model();
    // A refilled model shows every row again: the text applies to the new rows, once
    // the model is done (queued: a QTreeWidget's items are inserted one by one, and a
    // view being destroyed resets its model while it is half gone).
    connect(model, &QAbstractItemModel::modelReset, this, &TableFilter::refreshLater);
    connect(model, &QAbstractItemModel::layoutChanged, this, &TableFilter::refreshLater);
    connect(model, &QAbstractItemModel::rowsInserted, this, &TableFilter::refreshLater);
    connect(model, &QAbstractItemModel::rowsRemoved, this, &TableFilter::refreshLater);
    apply(view);
    recount();
}

void TableFilter::refreshLater()
{
    if (m_refreshQueued)
        return;
    m_refreshQueued = true;
    QMetaObject::invokeMethod(this, &TableFilter::refresh, Qt::QueuedConnection);
}

bool TableFilter::matches(QAbstractItemView *view, int row) const
{
    const QString text = m_field->text().trimmed();
    if (text.isEmpty())
        return true;
    const QAbstractItemModel *model = view->model();
    for (int c = 0; c < model->columnCount(); ++c)
        if (model->index(row, c).data(Qt::DisplayRole).toString().contains(text, Qt::CaseInsensitive))
            return true;
    return false;
}

void TableFilter::apply(QAbstractItemView *view)
{
    const int rows = view->model()->rowCount();
    for (int r = 0; r < rows; ++r)
        setRowHidden(view, r, !matches(view, r));
}

void TableFilter::refresh()
{
    m_refreshQueued = false;
    for (const QPointer<QAbstractItemView> &view : std::as_const(m_views))
        if (view)
            apply(view);
    recount();
}

void TableFilter::recount()
{
    m_shown = m_total = 0;
    for (const QPointer<QAbstractItemView> &view : std::as_const(m_views)) {
        if (!view || !view->isVisibleTo(m_scope))
            continue;
        const int rows = view->model()->rowCount();
        m_total += rows;
        for (int r = 0; r < rows; ++r)
            m_shown += matches(view, r) ? 1 : 0;
    }
    m_count->setText(m_field->text().trimmed().isEmpty() ? QString() : tr("%1 of %2 shown").arg(m_shown).arg(m_total));
}

bool TableFilter::eventFilter(QObject *watched, QEvent *event)
{
    // Escape clears the search, as in the inputs tree's filter.
    if (watched == m_field && event->type() == QEvent::KeyPress
        && static_cast<QKeyEvent *>(event)->key() == Qt::Key_Escape && !m_field->text().isEmpty()) {
        m_field->clear();
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace dimscope
