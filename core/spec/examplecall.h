// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

namespace dimscope {

class ConstraintSet;
class ShapeTable;

// The call whose inputs an export uses as its example: the call with the most
// non-static dimensions >= 2 (torch specializes 0 and 1; ideally all of them), among
// those the one where the fewest distinct root Dims have the same size (from a call
// where two Dims are equal torch may tie them), earliest on ties; 0 for an empty
// capture.
int chooseExampleCall(const ShapeTable &table, const ConstraintSet &constraints);

} // namespace dimscope
