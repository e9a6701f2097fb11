#include "models/dtypetext.h"

namespace dimscope {

// TODO: forward to dtype::torchName() once core/capture's dtype.cpp is in main.
QString dtypeText(DType t)
{
    switch (t) {
    case DType::Bool: return QStringLiteral("bool");
    case DType::U8: return QStringLiteral("uint8");
    case DType::I8: return QStringLiteral("int8");
    case DType::I16: return QStringLiteral("int16");
    case DType::U16: return QStringLiteral("uint16");
    case DType::I32: return QStringLiteral("int32");
    case DType::U32: return QStringLiteral("uint32");
    case DType::I64: return QStringLiteral("int64");
    case DType::U64: return QStringLiteral("uint64");
    case DType::F16: return QStringLiteral("float16");
    case DType::BF16: return QStringLiteral("bfloat16");
    case DType::F32: return QStringLiteral("float32");
    case DType::F64: return QStringLiteral("float64");
    case DType::F8_E4M3: return QStringLiteral("float8_e4m3fn");
    case DType::F8_E5M2: return QStringLiteral("float8_e5m2");
    }
    return QStringLiteral("?");
}

} // namespace dimscope
