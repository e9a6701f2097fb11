// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pt2/pt2program.h"

#include <QJsonObject>

namespace dimscope {

// The JSON view of a Pt2Program printed by `dimscope-cli pt2 --json`
// (docs/cli.md describes its keys). Sizes are numbers when static and plain-form
// strings ("s0", "s1 + 1") when symbolic.
class Pt2Json
{
public:
    static QJsonObject toJson(const Pt2Program &program);
    static QJsonValue sizeToJson(const SymSize &size);
    static QJsonObject tensorToJson(const Pt2TensorMeta &tensor);
};

} // namespace dimscope
