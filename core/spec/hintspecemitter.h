// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

namespace dimscope {

class ConstraintSet;
class TorchFeatures;
struct SpecNode;

// The dynamic_shapes of the SpecDialect::DimHints dialect, for SpecScript: each named
// Dim becomes an unnamed Dim.DYNAMIC with the Dim's range (torch names the symbols and
// finds the relations itself), in a variable of the Dim's name so the nested spec reads
// as the named one; Dim.AUTO and Dim.DYNAMIC entries stay. Whether min/max are written
// follows `torch`: as arguments where it takes them, as a comment where it does not, and
// through a run-time check where its version is unknown.
class HintSpecEmitter
{
public:
    static QString body(const ConstraintSet &set, const SpecNode &tree, const QStringList &used, const TorchFeatures &torch);
};

} // namespace dimscope
