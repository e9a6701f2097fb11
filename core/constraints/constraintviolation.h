// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QVector>

namespace dimscope {

// One way a ConstraintSet disagrees with a captured call.
struct ConstraintViolation {
    enum class Rule {
        Range,           // a (root) Dim's value outside [min, max]
        SharedDim,       // two leaf dims with the same Dim differ in a call
        DerivedRelation, // a derived Dim's value is not a*root + b of its root's value
        StaticValue,     // a static dimension changes between calls
        Rank,            // the constraint lists another number of dims than the tensor has
        UnknownLeaf,     // the constraint names a leaf no call has
        Structure,       // the calls themselves disagree (rank/kind/presence), see ShapeIssue
        DerivedRange     // a derived Dim's range goes below 0
    };
    Rule rule = Rule::Range;
    int call = -1;         // -1: not tied to one call
    QString path;          // leaf key path
    int dim = -1;          // dimension index, -1 for whole-leaf rules
    qint64 observed = -1;  // the captured size
    QString dimName;       // the Dim concerned
    QString message;       // the full sentence, naming all of the above

    static QString ruleName(Rule rule); // "range", "shared Dim", ...
};

struct ValidationReport {
    QVector<ConstraintViolation> violations; // at most the requested number
    int total = 0;                           // all violations found
    bool ok() const { return total == 0; }
};

} // namespace dimscope
