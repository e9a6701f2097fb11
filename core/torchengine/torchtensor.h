// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// LibTorch views of capture tensors. Include only from the .cpp files that use
// LibTorch (it costs ~20 s of compile time per translation unit), and include it
// before any Qt header (Qt's `slots` macro breaks LibTorch's headers).
#include <ATen/core/Tensor.h>

#include "capture/tensorview.h"

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
at::Tensor torchTensor(const Capture &capture, const Leaf &leaf, QString *error = nullptr);
at::Tensor torchTensor(const TensorView &view, QString *error = nullptr);

// The LibTorch scalar type of a capture dtype, when LibTorch 1.13 has one.
std::optional<c10::ScalarType> torchScalarType(DType t);

} // namespace dimscope
