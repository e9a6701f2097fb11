// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"

#include <QString>

#include <optional>

namespace dimscope {

// Opens a capture file (docs/capture-format.md): maps it, validates the safetensors
// header and the manifest strictly, and builds each call's pytree. Tensor bytes are
// not read: opening costs about the header, whatever the size of the data.
class CaptureReader
{
public:
    // On failure returns nullopt and sets *error (when given) to one line naming the
    // file and what is wrong where, e.g. "calls.safetensors: call 1, leaf
    // past_key_values.key_cache[0]: tensor 'c1/in/3' is not in the header".
    static std::optional<Capture> open(const QString &path, QString *error);

    // The longest safetensors header read (docs/capture-format.md): the safetensors
    // library's own limit (it refuses longer headers, so the worker could not load such
    // a capture), 12 times the header of dimscope's largest test capture (33,280
    // leaves, 7.9 MB: tests/bench). A declared length past it is refused unread.
    static constexpr qint64 kMaxHeaderBytes = 100000000;
};

} // namespace dimscope
