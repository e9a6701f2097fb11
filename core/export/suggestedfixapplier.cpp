// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/suggestedfixapplier.h"

#include <QStringList>

namespace dimscope {

QString SuggestedFixApplier::applyFix(ConstraintSet *set, const SuggestedFix &fix)
{
    switch (fix.kind) {
    case SuggestedFix::Kind::Unknown:
        return QStringLiteral("not a fix dimscope understands");
    case SuggestedFix::Kind::Specialize:
        return set->specializeDim(fix.name);
    case SuggestedFix::Kind::Range: {
        const DimDecl *d = set->dim(fix.name);
        if (!d)
            return set->addRootDim(fix.name, fix.min, fix.max);
        return d->isDerived() ? set->makeRoot(fix.name, fix.min, fix.max) : set->setRange(fix.name, fix.min, fix.max);
    }
    case SuggestedFix::Kind::Equal:
        return set->mergeDims(fix.other, fix.name);
    case SuggestedFix::Kind::Derived:
        return set->makeDerived(fix.name, fix.other, fix.a, fix.b);
    }
    return {};
}

SuggestedFixApplier::Result SuggestedFixApplier::apply(const ConstraintSet &set, const QString &message)
{
    Result r;
    r.constraints = set;
    r.violations = ExportErrorParser::parseViolations(message);
    QVector<SuggestedFix> fixes = ExportErrorParser::parseFixes(message);
    // Bare fix lines (pasted by a user) are accepted when every line is a fix.
    if (fixes.isEmpty() && !message.contains(QLatin1String("Suggested fixes:"))
        && !message.contains(QLatin1String("Constraints violated"))) {
        QVector<SuggestedFix> bare;
        bool allFixes = true;
        for (const QString &line : message.split(QLatin1Char('\n'))) {
            if (line.trimmed().isEmpty())
                continue;
            bare << ExportErrorParser::parseFix(line);
            allFixes = allFixes && bare.last().kind != SuggestedFix::Kind::Unknown;
        }
        if (allFixes)
            fixes = bare;
    }
    for (const SuggestedFix &f : fixes) {
        const QString err = applyFix(&r.constraints, f);
        if (err.isEmpty())
            r.applied << f;
        else
            r.unapplied.append({f.line, err});
    }
    return r;
}

} // namespace dimscope
