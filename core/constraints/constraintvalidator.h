// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constraints/constraintviolation.h"
#include "inference/shapetable.h"

namespace dimscope {

class ConstraintSet;

// Checks a ConstraintSet against every captured call. Built once per capture (the
// ShapeTable holds every size in one flat array), validate() is a tight loop over it,
// cheap enough to run on every edit.
class ConstraintValidator
{
public:
    explicit ConstraintValidator(const ShapeTable &table);

    ValidationReport validate(const ConstraintSet &set, int maxViolations = 1000) const;
    const ShapeTable &table() const { return m_table; }

private:
    ShapeTable m_table;
};

} // namespace dimscope
