// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/exportresult.h"

#include <QStringList>
#include <QVector>

namespace dimscope {

class ConstraintSet;
class ConstraintValidator;

// What one of torch's suggested fixes would do, shown before the user applies it: the
// shape decisions behind it (the model line that made torch ask for it) and the
// captured calls it would break. torch suggests fixes from the one example call it
// traced; `past_len = 0` from a call with an empty cache is right for that call and
// wrong for every decode call, and the user should see that before clicking.
struct FixPreview {
    QString line;                       // torch's fix line, "d1 = 4"
    QVector<ShapeExplanation> causes;   // the decisions about the fix's Dims, located ones first
    QVector<int> brokenCalls;           // calls that fit the constraints before and not after
    QString brokenExample;              // the first new violation's message
    QString problem;                    // the fix cannot be applied: why (empty when it can)

    bool breaksCalls() const { return !brokenCalls.isEmpty(); }
    // "tutorial.py:5: specialized: d1 == 4" (the first located cause), else the first
    // cause's text, else empty.
    QString causeText() const;
    // "breaks 6 captured calls: 1-3, 5-7 (…)" or empty.
    QString warningText() const;

    // One preview per fix line, each applied alone to a copy of `constraints`.
    static QVector<FixPreview> make(const ConstraintSet &constraints, const ConstraintValidator &validator,
                                    const QStringList &fixes, const QVector<ShapeExplanation> &explanations);
};

} // namespace dimscope
