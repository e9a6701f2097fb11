// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inference/dimgroup.h"
#include "inference/inferenceresult.h"

namespace dimscope {

// Sets each group's proposed min (rangeMin): 2 (1 for a batch group), or the smallest
// captured value when that is lower (the max stays unbounded). A root whose derived Dim a*root + b
// would go negative at that min has its min raised until it does not (torch.export
// rejects such a range); returns a warning per raise.
QVector<InferenceMessage> proposeDimRanges(QVector<DimGroup> *groups);

} // namespace dimscope
