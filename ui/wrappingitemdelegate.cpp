// SPDX-License-Identifier: GPL-3.0-or-later
#include "wrappingitemdelegate.h"

#include <QHeaderView>
#include <QTreeView>

namespace dimscope {

WrappingItemDelegate::WrappingItemDelegate(QTreeView *view) : QStyledItemDelegate(view), m_view(view)
{
    view->setWordWrap(true);
    view->setUniformRowHeights(false);
    connect(view->header(), &QHeaderView::sectionResized, view, [view] { view->doItemsLayout(); });
}

QSize WrappingItemDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QStyleOptionViewItem measured = option;
    // The style wraps only within a valid rectangle: the column's width, any height.
    measured.rect = QRect(0, 0, m_view->header()->sectionSize(index.column()), option.fontMetrics.height());
    measured.features |= QStyleOptionViewItem::WrapText;
    return QStyledItemDelegate::sizeHint(measured, index);
}

} // namespace dimscope
