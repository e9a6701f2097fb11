// SPDX-License-Identifier: GPL-3.0-or-later
#include "constraints/dimsplit.h"

namespace dimscope {

QString DimSplit::topLevelInput(const QString &path)
{
    for (int i = 0; i < path.size(); ++i) {
        if (path[i] == QLatin1Char('.') || path[i] == QLatin1Char('['))
            return path.left(i);
    }
    return path;
}

QStringList DimSplit::inputsUsing(const ConstraintSet &set, const QString &name)
{
    QStringList inputs;
    for (const LeafConstraint &leaf : set.leaves()) {
        for (const DimAssignment &a : leaf.dims) {
            if (a.isNamed() && a.dim == name) {
                const QString input = topLevelInput(leaf.path);
                if (!inputs.contains(input))
                    inputs << input;
            }
        }
    }
    return inputs;
}

namespace {

QString unusedName(const ConstraintSet &set, const QString &wanted)
{
    QString name = wanted;
    for (int n = 2; set.indexOfDim(name) >= 0; ++n)
        name = wanted + QLatin1Char('_') + QString::number(n);
    return name;
}

} // namespace

QStringList DimSplit::splitByInput(ConstraintSet *set, const QString &name, QString *error)
{
    const DimDecl *decl = set->dim(name);
    if (!decl) {
        *error = QStringLiteral("no Dim named '%1'").arg(name);
        return {};
    }
    if (decl->isDerived()) {
        *error = QStringLiteral("'%1' is derived; only a root Dim is split").arg(name);
        return {};
    }
    const QStringList inputs = inputsUsing(*set, name);
    ConstraintSet split = *set;
    QStringList created;
    for (int i = 1; i < inputs.size(); ++i) {
        const QString newName = unusedName(split, dimname::sanitize(name + QLatin1Char('_') + inputs[i]));
        QString e = split.addRootDim(newName, decl->min, decl->max);
        for (const LeafConstraint &leaf : set->leaves()) {
            if (!e.isEmpty() || topLevelInput(leaf.path) != inputs[i])
                continue;
            for (int d = 0; d < leaf.dims.size() && e.isEmpty(); ++d) {
                if (leaf.dims[d].isNamed() && leaf.dims[d].dim == name)
                    e = split.assign(leaf.path, d, DimAssignment::named(newName));
            }
        }
        if (!e.isEmpty()) {
            *error = e;
            return {};
        }
        created << newName;
    }
    *set = split;
    return created;
}

} // namespace dimscope
