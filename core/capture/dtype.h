// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QList>
#include <QStringView>

#include <optional>

namespace dimscope {

// Element types a capture may hold (the safetensors dtype names).
enum class DType : quint8 { Bool, U8, I8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, F8_E4M3, F8_E5M2 };

namespace dtype {
std::optional<DType> fromSafetensors(QStringView name); // "F32" -> F32; unknown -> nullopt
QString safetensorsName(DType t);                        // "F32"
QString torchName(DType t);                              // "float32"
int byteSize(DType t);                                   // 4
int onnxElementType(DType t);                            // 1 for float32, 7 for int64 (onnx-diagnostic's T1/T7)
std::optional<DType> fromSafetensors(const char *data, qsizetype size); // same, on raw UTF-8 bytes (no allocation)
bool isFloatingPoint(DType t);
QList<DType> all();                                      // every DType, in enum order
} // namespace dtype

} // namespace dimscope
