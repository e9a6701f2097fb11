// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAbstractItemModel>
#include <QString>

namespace dimscope::test {

// What a user reads in a view of `model`, as text: one line per row, the display texts
// of its cells joined by " | " (trailing empty cells dropped), children indented by two
// spaces.
QString dumpModel(const QAbstractItemModel *model, const QModelIndex &parent = {}, int depth = 0);

} // namespace dimscope::test
