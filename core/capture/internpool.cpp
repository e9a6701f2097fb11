// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture/internpool.h"

namespace dimscope {

QString InternPool::string(std::string_view utf8)
{
    // fromRawData: the lookup itself allocates nothing.
    const QByteArray key = QByteArray::fromRawData(utf8.data(), qsizetype(utf8.size()));
    auto it = m_strings.constFind(key);
    if (it != m_strings.constEnd())
        return it.value();
    const QString s = QString::fromUtf8(utf8.data(), qsizetype(utf8.size()));
    m_strings.insert(QByteArray(utf8.data(), qsizetype(utf8.size())), s);
    return s;
}

QVector<qint64> InternPool::shape(const QVector<qint64> &shape)
{
    auto it = m_shapes.constFind(shape);
    if (it != m_shapes.constEnd())
        return *it;
    m_shapes.insert(shape);
    return shape;
}

} // namespace dimscope
