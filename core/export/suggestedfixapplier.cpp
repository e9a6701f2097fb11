// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/suggestedfixapplier.h"

#include <QSet>
#include <QStringList>

#include <algorithm>

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
    case SuggestedFix::Kind::Unnamed:
        return set->unnameDim(fix.name);
    }
    return {};
}

namespace {

qint64 ceilDiv(qint64 n, qint64 d) { return n / d + ((n % d != 0 && (n > 0) == (d > 0)) ? 1 : 0); }
qint64 floorDiv(qint64 n, qint64 d) { return n / d - ((n % d != 0 && (n > 0) != (d > 0)) ? 1 : 0); }

} // namespace

QString SuggestedFixApplier::boundFreshRoot(ConstraintSet *set, const SuggestedFix &fix, const DimDecl &old)
{
    const DimDecl *root = set->dim(fix.other);
    if (!root || root->isDerived())
        return {};
    // The derived Dim keeps its old minimum (at least 0, which torch requires).
    const qint64 lowest = std::max<qint64>(old.min.value_or(0), 0);
    const qint64 rootMin = ceilDiv(lowest - fix.b, fix.a);
    std::optional<qint64> min = root->min, max = root->max;
    if (rootMin > min.value_or(0))
        min = rootMin;
    if (old.max) {
        const qint64 rootMax = floorDiv(*old.max - fix.b, fix.a);
        if (!max || rootMax < *max)
            max = rootMax;
    }
    if (min == root->min && max == root->max)
        return {};
    const QString range = QStringLiteral("[%1, %2]").arg(min.value_or(0)).arg(max ? QString::number(*max) : QStringLiteral("oo"));
    if (!set->setRange(fix.other, min, max).isEmpty())
        return {};
    return QStringLiteral("new root %1 in %2, so that %3 = %4 stays >= %5%6")
        .arg(fix.other, range, fix.name, set->dim(fix.name)->relationText())
        .arg(lowest)
        .arg(old.max ? QStringLiteral(" and <= %1").arg(*old.max) : QString());
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
    QSet<QString> freshRoots; // declared by this message's range fixes
    for (const SuggestedFix &f : fixes) {
        const DimDecl *before = r.constraints.dim(f.name);
        const DimDecl old = before ? *before : DimDecl::makeRoot(f.name);
        if (f.kind == SuggestedFix::Kind::Range && !before)
            freshRoots.insert(f.name);
        const QString err = applyFix(&r.constraints, f);
        if (!err.isEmpty()) {
            r.unapplied.append({f.line, err});
            continue;
        }
        r.applied << f;
        if (f.kind == SuggestedFix::Kind::Derived && freshRoots.contains(f.other) && !old.isDerived()) {
            const QString note = boundFreshRoot(&r.constraints, f, old);
            if (!note.isEmpty())
                r.notes.insert(f.line, note);
        }
    }
    return r;
}

} // namespace dimscope
