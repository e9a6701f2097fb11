// SPDX-License-Identifier: GPL-3.0-or-later
#include "json/jsoninteger.h"

namespace dimscope {

std::optional<qint64> exactInteger(const QJsonValue &v)
{
    if (!v.isDouble())
        return std::nullopt;
    // QJsonValue::toInteger checks the range before converting and returns its
    // default for anything it cannot represent: two different defaults tell that
    // case from a value equal to one of them.
    const qint64 a = v.toInteger(0);
    const qint64 b = v.toInteger(1);
    if (a != b)
        return std::nullopt;
    return a;
}

} // namespace dimscope
