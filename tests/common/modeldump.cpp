// SPDX-License-Identifier: GPL-3.0-or-later
#include "modeldump.h"

#include <QStringList>

namespace dimscope::test {

QString dumpModel(const QAbstractItemModel *model, const QModelIndex &parent, int depth)
{
    QString out;
    for (int r = 0; r < model->rowCount(parent); ++r) {
        QStringList cells;
        for (int c = 0; c < model->columnCount(parent); ++c)
            cells << model->index(r, c, parent).data().toString();
        while (!cells.isEmpty() && cells.last().isEmpty())
            cells.removeLast();
        out += QString(depth * 2, QLatin1Char(' ')) + cells.join(QStringLiteral(" | ")) + QLatin1Char('\n');
        out += dumpModel(model, model->index(r, 0, parent), depth + 1);
    }
    return out;
}

} // namespace dimscope::test
