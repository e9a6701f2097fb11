// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <QVector>

#include <string_view>

namespace dimscope {

// The safetensors names of a capture's tensors, in header order, back to back in
// one block. A QString in each leaf cost about 70 bytes a leaf with its allocation,
// a tenth of a large capture's memory, for a name that only `inspect` prints.
// Implicitly shared: copying a Capture copies no name.
class TensorNames
{
public:
    // Room for `count` names of `bytes` bytes in all: append() then never moves
    // the block, so the views it returns stay valid.
    void reserve(qsizetype count, qsizetype bytes);
    // Adds a name (UTF-8) and returns a view of it inside this object's block.
    std::string_view append(std::string_view utf8);

    int size() const { return int(m_ends.size()); }
    QString at(int index) const; // empty when there is no such name

private:
    QByteArray m_bytes;
    QVector<qsizetype> m_ends; // where each name ends in m_bytes
};

} // namespace dimscope
