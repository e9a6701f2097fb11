// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStyledItemDelegate>

class QTreeView;

namespace dimscope {

// Row heights of a tree view whose cells wrap their text: QTreeView asks the delegate
// for a size without the column's width, so wrapped text would get one line. This
// delegate measures each cell at its column's width, and the view lays its rows out
// again when a column is resized.
class WrappingItemDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    explicit WrappingItemDelegate(QTreeView *view);

    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

private:
    QTreeView *m_view;
};

} // namespace dimscope
