// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <cstddef>
#include <cstdint>

namespace dimscope::fuzz {

// Hands a fuzz input to a reader that only takes a path (captures are mapped,
// archives opened by libzip, projects read through RegularFile): the bytes are
// written to one file in a temporary folder of this process, made on first use and
// reused for every input (a file per input would cost more than most inputs'
// parsing). The folder is removed when the process exits normally.
class FuzzInputFile
{
public:
    // Replaces the file's contents with [data, data + size) and returns its path;
    // aborts (a finding, not a silent pass) when the file cannot be written.
    static QString write(const uint8_t *data, size_t size, const QString &fileName);
};

} // namespace dimscope::fuzz
