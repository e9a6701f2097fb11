#pragma once

namespace dimscope {

class ConstraintSet;
class ShapeTable;

// The call whose inputs an export uses as its example: the first call that has every
// leaf with a non-static dimension and where all those dimensions are >= 2 (torch
// specializes 0 and 1); failing that, the call with the most such dimensions >= 2
// (earliest on ties); 0 for an empty capture.
int chooseExampleCall(const ShapeTable &table, const ConstraintSet &constraints);

} // namespace dimscope
