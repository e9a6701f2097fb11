// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QVector>

#include <limits>

namespace dimscope {

class ConstraintSet;
class ViolationCollector;

// A Dim of a ConstraintSet as the validator checks it: its root's value slot and
// range, and for a derived Dim the relation a*root + b.
struct ResolvedDim {
    int root = 0; // the root's value slot: roots are numbered in set order
    qint64 a = 1, b = 0;
    bool derived = false;
    qint64 min = 0, max = std::numeric_limits<qint64>::max(); // the root's range
    QString name, rootName, relation;
};

// Every Dim of a set resolved, in the set's order.
class ResolvedDims
{
public:
    // Reports, as DerivedRange violations, the derived Dims that go below 0 at
    // their root's min (torch.export rejects those).
    ResolvedDims(const ConstraintSet &set, ViolationCollector *out);

    const ResolvedDim &at(int dimIndex) const { return m_dims[dimIndex]; }
    int rootCount() const { return m_rootCount; }

private:
    QVector<ResolvedDim> m_dims;
    int m_rootCount = 0;
};

} // namespace dimscope
