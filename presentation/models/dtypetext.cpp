// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/dtypetext.h"

namespace dimscope {

QString dtypeText(DType t) { return dtype::torchName(t); }

} // namespace dimscope
