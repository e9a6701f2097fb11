#include "models/dtypetext.h"

namespace dimscope {

QString dtypeText(DType t) { return dtype::torchName(t); }

} // namespace dimscope
