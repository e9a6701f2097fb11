// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "compare/comparison.h"

namespace dimscope {

class Capture;
class ShapeTable;

// Two captures side by side (issue 28, problem 12; File > Compare Captures…): how many
// calls each has, every tensor input leaf's shape over its calls ("2 x [5..9] x 64",
// "—" where a capture has no such leaf: new and missing leaves), and which leaf dims
// vary in each. From the captures' shape tables alone: no tensor bytes are read.
class CaptureComparison
{
public:
    // `titleA`, `titleB`: how the two are named (their file names).
    static Comparison make(const Capture &a, const Capture &b, const QString &titleA, const QString &titleB);

    static Comparison::Section calls(const Capture &a, const Capture &b);
    static Comparison::Section leaves(const ShapeTable &a, const ShapeTable &b);
    static Comparison::Section varyingDims(const ShapeTable &a, const ShapeTable &b);

    // A leaf's shape over the calls that have it: "2 x [5..9] x 64"; a scalar "scalar".
    static QString shapeText(const ShapeTable &table, int leaf);
};

} // namespace dimscope
