// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QHash>
#include <QSet>
#include <QString>
#include <QVector>

#include <string_view>

namespace dimscope {

// Shares equal strings and shapes between the leaves of a capture. Captures repeat
// the same key paths, devices and shapes in every call: keeping one implicitly
// shared copy of each keeps a 30,000-leaf capture's footprint near its header's.
class InternPool
{
public:
    QString string(std::string_view utf8);
    QVector<qint64> shape(const QVector<qint64> &shape);

private:
    QHash<QByteArray, QString> m_strings;
    QSet<QVector<qint64>> m_shapes;
};

} // namespace dimscope
