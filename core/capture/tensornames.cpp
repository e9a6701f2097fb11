// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture/tensornames.h"

namespace dimscope {

void TensorNames::reserve(qsizetype count, qsizetype bytes)
{
    m_ends.reserve(count);
    m_bytes.reserve(bytes);
}

std::string_view TensorNames::append(std::string_view utf8)
{
    const qsizetype at = m_bytes.size();
    m_bytes.append(utf8.data(), qsizetype(utf8.size()));
    m_ends.append(m_bytes.size());
    return std::string_view(m_bytes.constData() + at, utf8.size());
}

QString TensorNames::at(int index) const
{
    if (index < 0 || index >= m_ends.size())
        return QString();
    const qsizetype begin = index == 0 ? 0 : m_ends.at(index - 1);
    return QString::fromUtf8(m_bytes.constData() + begin, m_ends.at(index) - begin);
}

} // namespace dimscope
