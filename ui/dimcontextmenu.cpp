// SPDX-License-Identifier: GPL-3.0-or-later
#include "dimcontextmenu.h"

#include "deriveddimdialog.h"
#include "models/dimcolours.h"
#include "dimedits.h"
#include "document/projectdocument.h"

#include <QActionGroup>
#include <QCoreApplication>
#include <QMenu>
#include <QPixmap>

namespace dimscope {

namespace {
QString tr(const char *text)
{
    return QCoreApplication::translate("DimContextMenu", text);
}

QIcon swatch(const QColor &colour)
{
    QPixmap pm(12, 12);
    pm.fill(colour.isValid() ? colour : Qt::transparent);
    return QIcon(pm);
}
} // namespace

void DimContextMenu::addDimActions(QMenu *menu, ProjectDocument *document, const QString &path, int dim,
                                   QWidget *dialogParent, const Report &report)
{
    const DimAssignment current = document->constraints().assignment(path, dim);
    auto *group = new QActionGroup(menu);
    auto addKind = [&](const char *objectName, const QString &text, const DimAssignment &a) {
        QAction *act = menu->addAction(text);
        act->setObjectName(QLatin1String(objectName));
        act->setCheckable(true);
        act->setChecked(current == a);
        group->addAction(act);
        QObject::connect(act, &QAction::triggered, menu, [=] { report(dimedits::assign(document, path, dim, a)); });
    };
    addKind("actionMakeStatic", tr("Make &static"), DimAssignment::makeStatic());
    addKind("actionMakeAuto", tr("Dim.&AUTO"), DimAssignment::makeAuto());
    addKind("actionMakeDynamic", tr("Dim.&DYNAMIC"), DimAssignment::makeDynamic());

    QMenu *assign = menu->addMenu(tr("Assign to &Dim"));
    assign->setObjectName(QStringLiteral("menuAssignDim"));
    for (const DimDecl &d : document->constraints().dims()) {
        QAction *act = assign->addAction(swatch(document->dimColours().colour(d.name)),
                                         d.isDerived() ? QStringLiteral("%1 = %2").arg(d.name, d.relationText()) : d.name);
        act->setObjectName(QStringLiteral("assign_") + d.name);
        act->setCheckable(true);
        act->setChecked(current == DimAssignment::named(d.name));
        group->addAction(act);
        const DimAssignment a = DimAssignment::named(d.name);
        QObject::connect(act, &QAction::triggered, menu, [=] { report(dimedits::assign(document, path, dim, a)); });
    }
    assign->setEnabled(!assign->isEmpty());

    menu->addSeparator();
    QAction *newDim = menu->addAction(tr("&New Dim from here"));
    newDim->setObjectName(QStringLiteral("actionNewDim"));
    QObject::connect(newDim, &QAction::triggered, menu, [=] { report(dimedits::newDim(document, path, dim)); });
    QAction *derived = menu->addAction(tr("De&rived Dim (A × root + B)…"));
    derived->setObjectName(QStringLiteral("actionDerivedDim"));
    QObject::connect(derived, &QAction::triggered, menu, [=] {
        DerivedDimDialog dialog(document, path, dim, dialogParent);
        if (dialog.exec() != QDialog::Accepted)
            return;
        report(dimedits::newDerivedDim(document, path, dim, dialog.name(), dialog.root(), dialog.a(), dialog.b()));
    });
}

void DimContextMenu::populate(QMenu *menu, ProjectDocument *document, const QString &path, int preferredDim,
                              QWidget *dialogParent, const Report &report)
{
    const ShapeTable &table = document->table();
    const int li = table.indexOf(path);
    if (li < 0)
        return;
    const int rank = table.leaf(li).rank;
    if (preferredDim >= 0 && preferredDim < rank) {
        menu->addSection(tr("dim %1 (%2)").arg(preferredDim).arg(document->constraints().assignment(path, preferredDim).toString()));
        addDimActions(menu, document, path, preferredDim, dialogParent, report);
        menu->addSeparator();
    }
    for (int d = 0; d < rank; ++d) {
        if (d == preferredDim)
            continue;
        QMenu *sub = menu->addMenu(tr("dim %1: %2").arg(d).arg(document->constraints().assignment(path, d).toString()));
        sub->setObjectName(QStringLiteral("menuDim%1").arg(d));
        addDimActions(sub, document, path, d, dialogParent, report);
    }
}

} // namespace dimscope
