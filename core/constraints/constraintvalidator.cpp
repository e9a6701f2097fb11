// SPDX-License-Identifier: GPL-3.0-or-later
#include "constraints/constraintvalidator.h"

#include "util/terminaltext.h"

#include "constraints/constraintset.h"
#include "constraints/leafdimchecker.h"
#include "constraints/resolveddims.h"
#include "constraints/violationcollector.h"

namespace dimscope {

ConstraintValidator::ConstraintValidator(const ShapeTable &table)
    : m_table(table)
{
}

namespace {

using Rule = ConstraintViolation::Rule;

void reportStructureIssues(const ShapeTable &table, ViolationCollector *out)
{
    for (const ShapeIssue &issue : table.issues()) {
        if (!issue.isError())
            continue; // a call of another structure is served by another program, not a violation
        out->add(Rule::Structure, issue.calls.isEmpty() ? -1 : issue.calls.first(), issue.path, -1, -1, {},
                 [&] { return issue.message; });
    }
}

void reportUnknownLeaves(const ShapeTable &table, const ConstraintSet &set, ViolationCollector *out)
{
    for (const LeafConstraint &l : set.leaves()) {
        if (table.indexOf(l.path) < 0)
            out->add(Rule::UnknownLeaf, -1, l.path, -1, -1, {}, [&] {
                return QStringLiteral("%1 is in the constraint set but no captured call has it as a tensor").arg(TerminalText::quoted(l.path));
            });
    }
}

} // namespace

ValidationReport ConstraintValidator::validate(const ConstraintSet &set, int maxViolations) const
{
    ValidationReport report;
    ViolationCollector out(&report, maxViolations);
    reportStructureIssues(m_table, &out);
    const ResolvedDims dims(set, &out);
    LeafDimChecker checker(m_table, set, dims, &out);

    const QVector<LeafConstraint> &leaves = set.leaves();
    int matched = 0;
    for (int li = 0; li < m_table.leafCount(); ++li) {
        const QString &path = m_table.leaf(li).path;
        // Sets made from this capture list leaves in table order: try the same index first.
        const LeafConstraint *lc = (li < leaves.size() && leaves[li].path == path) ? &leaves[li] : set.leaf(path);
        matched += lc ? 1 : 0;
        checker.checkLeaf(li, lc);
    }
    if (matched < leaves.size())
        reportUnknownLeaves(m_table, set, &out);
    return report;
}

} // namespace dimscope
