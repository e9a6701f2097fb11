// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "compare/comparison.h"

namespace dimscope {

struct ExportRecord;

// Two exports of one document side by side (issue 28, problem 12): the verdict, the
// programs and the calls each serves, the range every Dim got in the programs read
// back, torch's shape decisions (guards, specializations), and each captured call's
// verification. Both records come from the same document's history, so call N is the
// same call in both.
class ExportComparison
{
public:
    static Comparison make(const ExportRecord &a, const ExportRecord &b);

    // Sections, one per aspect (public for the tests' sake: each is a pure function).
    static Comparison::Section results(const ExportRecord &a, const ExportRecord &b);
    static Comparison::Section programs(const ExportRecord &a, const ExportRecord &b);
    static Comparison::Section ranges(const ExportRecord &a, const ExportRecord &b);
    static Comparison::Section guards(const ExportRecord &a, const ExportRecord &b);
    static Comparison::Section calls(const ExportRecord &a, const ExportRecord &b);
    static Comparison::Section verification(const ExportRecord &a, const ExportRecord &b);
};

} // namespace dimscope
