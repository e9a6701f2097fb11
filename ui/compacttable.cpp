// SPDX-License-Identifier: GPL-3.0-or-later
#include "compacttable.h"

#include <QHeaderView>
#include <QTableView>
#include <QTreeView>

namespace dimscope {

void CompactTable::allowOneRow(QAbstractItemView *view)
{
    const QHeaderView *header = nullptr;
    int row = view->fontMetrics().height() + 6; // a tree's row: its text and the style's margins
    if (auto *table = qobject_cast<QTableView *>(view)) {
        header = table->horizontalHeader();
        row = table->verticalHeader()->defaultSectionSize();
    } else if (auto *tree = qobject_cast<QTreeView *>(view)) {
        header = tree->header();
    }
    const int headerHeight = header && !header->isHidden() ? header->sizeHint().height() : 0;
    view->setMinimumHeight(2 * view->frameWidth() + headerHeight + row);
}

} // namespace dimscope
