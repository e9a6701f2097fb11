// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonValue>

#include <optional>

namespace dimscope {

// The 64-bit integer a JSON number stands for exactly, or nullopt: for a non-number,
// a fraction, or a whole number outside qint64 (1e21, 1e300), which a plain cast
// from double would turn into an undefined value (shown as -9223372036854775808).
// Integers written as JSON integers keep their exact value up to the qint64 limits.
std::optional<qint64> exactInteger(const QJsonValue &v);

} // namespace dimscope
