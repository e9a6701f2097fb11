// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/fixpreview.h"

#include "export/exportphases.h"
#include "constraints/constraintset.h"
#include "constraints/constraintvalidator.h"
#include "export/suggestedfixapplier.h"

#include <QFileInfo>
#include <QSet>

namespace dimscope {

namespace {

QSet<int> callsViolated(const ValidationReport &report)
{
    QSet<int> calls;
    for (const ConstraintViolation &v : report.violations) {
        if (v.call >= 0)
            calls.insert(v.call);
    }
    return calls;
}

QVector<ShapeExplanation> causesOf(const SuggestedFix &fix, const QVector<ShapeExplanation> &explanations)
{
    QVector<ShapeExplanation> located, atInputs;
    for (const QString &name : {fix.name, fix.other}) {
        if (name.isEmpty())
            continue;
        for (const ShapeExplanation &e : ShapeExplanation::about(explanations, name))
            (e.location.isValid() ? located : atInputs) << e;
    }
    return located + atInputs;
}

} // namespace

QVector<FixPreview> FixPreview::make(const ConstraintSet &constraints, const ConstraintValidator &validator,
                                     const QStringList &fixes, const QVector<ShapeExplanation> &explanations)
{
    const QSet<int> before = callsViolated(validator.validate(constraints));
    QVector<FixPreview> previews;
    for (const QString &line : fixes) {
        FixPreview p;
        p.line = line;
        const SuggestedFix fix = ExportErrorParser::parseFix(line);
        p.causes = causesOf(fix, explanations);
        ConstraintSet after = constraints;
        p.problem = fix.kind == SuggestedFix::Kind::Unknown ? QStringLiteral("not a fix dimscope understands")
                                                            : SuggestedFixApplier::applyFix(&after, fix);
        if (p.problem.isEmpty()) {
            const ValidationReport report = validator.validate(after);
            for (const ConstraintViolation &v : report.violations) {
                if (v.call >= 0 && !before.contains(v.call) && !p.brokenCalls.contains(v.call)) {
                    p.brokenCalls << v.call;
                    if (p.brokenExample.isEmpty())
                        p.brokenExample = v.message;
                }
            }
            std::sort(p.brokenCalls.begin(), p.brokenCalls.end());
        }
        previews << p;
    }
    return previews;
}

QString FixPreview::causeText() const
{
    if (causes.isEmpty())
        return {};
    const ShapeExplanation &e = causes.first();
    if (!e.location.isValid())
        return QStringLiteral("%1: %2 (at the inputs)").arg(e.kindText(), e.expression);
    return QStringLiteral("%1:%2: %3: %4")
        .arg(QFileInfo(e.location.file).fileName())
        .arg(e.location.line)
        .arg(e.kindText(), e.expression);
}

QString FixPreview::warningText() const
{
    if (!problem.isEmpty())
        return QStringLiteral("cannot be applied: %1").arg(problem);
    if (brokenCalls.isEmpty())
        return {};
    return QStringLiteral("breaks %1 captured call%2: %3 (%4)")
        .arg(brokenCalls.size())
        .arg(brokenCalls.size() == 1 ? QString() : QStringLiteral("s"), ExportPhases::callsText(brokenCalls), brokenExample);
}

} // namespace dimscope
