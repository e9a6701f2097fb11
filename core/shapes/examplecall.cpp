#include "shapes/examplecall.h"

#include "shapes/constraintset.h"
#include "shapes/shapetable.h"

namespace dimscope {

int chooseExampleCall(const ShapeTable &table, const ConstraintSet &constraints)
{
    QVector<int> rows; // dim rows that are not static
    for (const LeafConstraint &l : constraints.leaves()) {
        const int li = table.indexOf(l.path);
        if (li < 0)
            continue;
        const auto &info = table.leaf(li);
        for (int d = 0; d < l.dims.size() && d < info.rank; ++d) {
            if (!l.dims[d].isStatic())
                rows << info.firstDim + d;
        }
    }
    int best = 0, bestScore = -1;
    for (int c = 0; c < table.callCount(); ++c) {
        int good = 0;
        for (int r : rows)
            good += table.value(r, c) >= 2 ? 1 : 0;
        if (good == rows.size())
            return c;
        if (good > bestScore) {
            best = c;
            bestScore = good;
        }
    }
    return best;
}

} // namespace dimscope
