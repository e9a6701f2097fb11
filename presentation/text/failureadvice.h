// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/exportresult.h"

#include <QString>

namespace dimscope {

// What the user can do about a failed export, by the failure's kind: where to look
// and which menu item changes what failed. Empty when the failure view says it all
// (torch's suggested fixes, a cancel).
class FailureAdvice
{
public:
    static QString forFailure(const WorkerFailure &failure);
};

} // namespace dimscope
