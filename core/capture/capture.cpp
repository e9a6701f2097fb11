// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture/capture.h"
#include "capture/mappedfile.h"

namespace dimscope {

const uchar *Capture::bytes(const Leaf &leaf) const
{
    if (!mapping || !leaf.isTensor() || leaf.fileOffset < 0 || leaf.byteSize < 0
        || leaf.fileOffset + leaf.byteSize > mapping->size())
        return nullptr;
    return mapping->data() + leaf.fileOffset;
}

} // namespace dimscope
