// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace dimscope {

class Capture;

// Whether the calls of a held-out capture (`export --verify-with OTHER`) have the input
// structure of the recorded capture's calls, checked before anything is exported: each
// held-out call must have the leaves (key paths, kinds, tensor ranks and dtypes) of some
// recorded call, or no program exported from the recorded calls can take it and the
// replay would only say so after minutes.
class HeldOutStructure
{
public:
    // Empty when every held-out call fits a recorded call; else one message naming the
    // held-out file, the call and the leaf: "OTHER.safetensors: call 2 has leaf
    // past_key_values.key_cache[2], which no call of rec.safetensors has".
    static QString mismatch(const Capture &recorded, const Capture &heldOut);
    // The held-out capture at `path` read (CaptureReader) and checked as above: empty
    // when it fits, else why not (unreadable: the reader's message naming the file).
    // `recordedName` names the recorded capture in the message.
    static QString fileMismatch(const Capture &recorded, const QString &recordedName, const QString &path);
};

} // namespace dimscope
