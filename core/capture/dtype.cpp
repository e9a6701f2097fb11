// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture/dtype.h"

#include <array>
#include <string_view>

namespace dimscope {

namespace {

struct DTypeInfo {
    std::string_view safetensors; // a view: its length is known, not counted per lookup
    const char *torch;
    int size;
    int onnx; // onnx TensorProto.DataType
};

// Indexed by DType's underlying value.
constexpr std::array<DTypeInfo, 15> kInfo = {{
    {"BOOL", "bool", 1, 9},
    {"U8", "uint8", 1, 2},
    {"I8", "int8", 1, 3},
    {"I16", "int16", 2, 5},
    {"U16", "uint16", 2, 4},
    {"I32", "int32", 4, 6},
    {"U32", "uint32", 4, 12},
    {"I64", "int64", 8, 7},
    {"U64", "uint64", 8, 13},
    {"F16", "float16", 2, 10},
    {"BF16", "bfloat16", 2, 16},
    {"F32", "float32", 4, 1},
    {"F64", "float64", 8, 11},
    {"F8_E4M3", "float8_e4m3fn", 1, 17},
    {"F8_E5M2", "float8_e5m2", 1, 19},
}};

const DTypeInfo &info(DType t) { return kInfo[static_cast<size_t>(t)]; }

} // namespace

namespace dtype {

std::optional<DType> fromSafetensors(QStringView name)
{
    for (size_t i = 0; i < kInfo.size(); ++i) {
        if (name == QLatin1String(kInfo[i].safetensors.data(), qsizetype(kInfo[i].safetensors.size())))
            return static_cast<DType>(i);
    }
    return std::nullopt;
}

QString safetensorsName(DType t) { return QLatin1String(info(t).safetensors.data(), qsizetype(info(t).safetensors.size())); }
QString torchName(DType t) { return QLatin1String(info(t).torch); }
int byteSize(DType t) { return info(t).size; }
int onnxElementType(DType t) { return info(t).onnx; }

std::optional<DType> fromSafetensors(const char *data, qsizetype size)
{
    for (size_t i = 0; i < kInfo.size(); ++i) {
        if (kInfo[i].safetensors == std::string_view(data, size_t(size)))
            return static_cast<DType>(i);
    }
    return std::nullopt;
}

bool isFloatingPoint(DType t)
{
    switch (t) {
    case DType::F16: case DType::BF16: case DType::F32: case DType::F64: case DType::F8_E4M3: case DType::F8_E5M2:
        return true;
    default:
        return false;
    }
}

QList<DType> all()
{
    QList<DType> out;
    for (size_t i = 0; i < kInfo.size(); ++i)
        out.append(static_cast<DType>(i));
    return out;
}

} // namespace dtype
} // namespace dimscope
