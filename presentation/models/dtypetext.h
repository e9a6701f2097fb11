// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/dtype.h"

namespace dimscope {

// The torch spelling of a dtype ("float32"), as the tree and details panel show it.
QString dtypeText(DType t);

} // namespace dimscope
