// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// LibTorch views of capture tensors, for code that runs LibTorch in process: the
// tensor engine plugin (this folder) and the tests. Nothing in dimscope_core, the GUI
// or the CLI may include it: they reach LibTorch only through capture/tensorengine.h.
// Include it before any Qt header (Qt's `slots` macro breaks LibTorch's headers).
#include <ATen/core/Tensor.h>

#include "capture/tensorview.h"

#include <optional>

namespace dimscope {

// A LibTorch tensor over the leaf's mapped bytes, without copying: its deleter holds
// a reference to the mapping, so the tensor stays valid after the Capture is gone.
// Treat it as read-only (clone() before any in-place operation): the mapping is
// copy-on-write, so writes never reach the file, but other views would see them.
//
// Returns an undefined tensor with *error set when the leaf is not a tensor or
// LibTorch 1.13 has no matching dtype (uint16/32/64, float8: use
// computeTensorStats, which widens them). Data that is not aligned for its element
// type (only in files not written by safetensors/dimscope) is copied.
// Defined in the static library dimscope_torchtensor (core/torchengine/CMakeLists.txt).
at::Tensor torchTensor(const Capture &capture, const Leaf &leaf, QString *error = nullptr);
at::Tensor torchTensor(const TensorView &view, QString *error = nullptr);

// The LibTorch scalar type of a capture dtype, when LibTorch 1.13 has one. Inline: the
// plugin uses it without linking anything of dimscope_core.
inline std::optional<c10::ScalarType> torchScalarType(DType t)
{
    switch (t) {
    case DType::Bool: return c10::ScalarType::Bool;
    case DType::U8: return c10::ScalarType::Byte;
    case DType::I8: return c10::ScalarType::Char;
    case DType::I16: return c10::ScalarType::Short;
    case DType::I32: return c10::ScalarType::Int;
    case DType::I64: return c10::ScalarType::Long;
    case DType::F16: return c10::ScalarType::Half;
    case DType::BF16: return c10::ScalarType::BFloat16;
    case DType::F32: return c10::ScalarType::Float;
    case DType::F64: return c10::ScalarType::Double;
    default: return std::nullopt; // U16/U32/U64 and float8 arrived after LibTorch 1.13
    }
}

} // namespace dimscope
