// SPDX-License-Identifier: GPL-3.0-or-later
#include "dimedits.h"

#include "document/projectdocument.h"
#include "inference/dimnaming.h"

#include <QCoreApplication>
#include <QSet>

namespace dimscope::dimedits {

namespace {

// Makes sure `path` is listed with its full rank, so that assign() can address `dim`.
QString ensureLeaf(ConstraintSet &set, const ShapeTable &table, const QString &path, int dim)
{
    const int li = table.indexOf(path);
    if (li < 0)
        return QCoreApplication::translate("dimedits", "'%1' is not a tensor leaf of the capture").arg(path);
    const int rank = table.leaf(li).rank;
    if (dim < 0 || dim >= rank)
        return QCoreApplication::translate("dimedits", "%1 has %2 dimension(s), there is no dim %3").arg(path).arg(rank).arg(dim);
    if (set.leaf(path))
        return {};
    return set.setLeaf(path, QVector<DimAssignment>(rank, DimAssignment::makeStatic()));
}

QString undoText(const QString &path, int dim, const QString &what)
{
    return QCoreApplication::translate("dimedits", "%1 dim %2: %3").arg(path).arg(dim).arg(what);
}

} // namespace

QString assign(ProjectDocument *document, const QString &path, int dim, const DimAssignment &assignment)
{
    const ShapeTable &table = document->table();
    return document->edit(undoText(path, dim, assignment.toString()), [&](ConstraintSet &set) {
        QString error = ensureLeaf(set, table, path, dim);
        return error.isEmpty() ? set.assign(path, dim, assignment) : error;
    });
}

QString newDim(ProjectDocument *document, const QString &path, int dim, QString *name)
{
    QSet<QString> taken;
    for (const DimDecl &d : document->constraints().dims())
        taken.insert(d.name);
    const QString chosen = DimNaming::claimUnique(DimNaming::fallbackName(path, dim), &taken);
    const ShapeTable &table = document->table();
    const QString error = document->edit(undoText(path, dim, QCoreApplication::translate("dimedits", "new Dim %1").arg(chosen)),
                                         [&](ConstraintSet &set) {
                                             QString e = ensureLeaf(set, table, path, dim);
                                             if (e.isEmpty())
                                                 e = set.addRootDim(chosen);
                                             return e.isEmpty() ? set.assign(path, dim, DimAssignment::named(chosen)) : e;
                                         });
    if (error.isEmpty() && name)
        *name = chosen;
    return error;
}

QString newDerivedDim(ProjectDocument *document, const QString &path, int dim, const QString &name, const QString &root,
                      qint64 a, qint64 b)
{
    const ShapeTable &table = document->table();
    const DimDecl decl = DimDecl::makeDerived(name, root, a, b);
    return document->edit(undoText(path, dim, decl.relationText()), [&](ConstraintSet &set) {
        QString e = ensureLeaf(set, table, path, dim);
        if (e.isEmpty())
            e = set.addDerivedDim(name, root, a, b);
        return e.isEmpty() ? set.assign(path, dim, DimAssignment::named(name)) : e;
    });
}

} // namespace dimscope::dimedits
