// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <functional>

class QMenu;
class QWidget;

namespace dimscope {

class ProjectDocument;

// The inputs tree's context menu for tensor leaves: per dimension make static /
// Dim.AUTO / Dim.DYNAMIC, assign to an existing Dim, new Dim from here, derived Dim.
// Actions carry object names (actionMakeStatic, actionMakeAuto, actionMakeDynamic,
// actionNewDim, actionDerivedDim, assign_<Dim>) so tests can trigger them.
class DimContextMenu
{
public:
    using Report = std::function<void(const QString &error)>;

    // Actions for one leaf dimension, added to `menu`.
    static void addDimActions(QMenu *menu, ProjectDocument *document, const QString &path, int dim,
                              QWidget *dialogParent, const Report &report);
    // A whole leaf: `preferredDim` (the one under the cursor, -1 if none) directly in
    // the menu, then one submenu per dimension.
    static void populate(QMenu *menu, ProjectDocument *document, const QString &path, int preferredDim,
                         QWidget *dialogParent, const Report &report);
};

} // namespace dimscope
