// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constraints/constraintset.h"

#include <QString>

namespace dimscope::test {
// "batch[1,oo] total_len=past_len + 1" : the Dims of a set, for table-driven tests.
QString summarizeDims(const ConstraintSet &set);
// "x(batch,x_dim1) y(static,x_dim1)" : the leaves with a non-static dim only.
QString summarizeLeaves(const ConstraintSet &set);
} // namespace dimscope::test
