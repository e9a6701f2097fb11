// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QAbstractItemView;

namespace dimscope {

// A table or tree that may shrink to its header and one row, where Qt's default
// minimum (70 px, room for both scroll bars) stacked up: the Exported Program page's
// programs, inputs, ranges and verification tables and the Plot dock made the window's
// minimum height 675 px after an export, over a 1366x768 laptop's 614 at 125 % (issue 28
// problem 1). It scrolls below that.
namespace CompactTable {
void allowOneRow(QAbstractItemView *view);
}

} // namespace dimscope
