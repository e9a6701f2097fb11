// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace dimscope {

// The banner's line for a file that could not be opened: the file's path once, then
// the reason. The readers' errors already start with the path ("/a/b.safetensors:
// file is 7 bytes long…"); that prefix is dropped rather than shown twice.
QString openFailureText(const QString &path, const QString &error);

} // namespace dimscope
