// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constraints/dimassignment.h"

#include <QString>

namespace dimscope {

class ProjectDocument;

// The edits of a leaf dimension offered by the inputs tree's context menu, each one
// undo step of the document. They return the error (empty = applied). A leaf the set
// does not list yet is added (all static) first, in the same step.
namespace dimedits {

QString assign(ProjectDocument *document, const QString &path, int dim, const DimAssignment &assignment);
// A new root Dim named after the leaf dimension (`<leaf>_dim<i>`, made unique) with
// no range, assigned to it. *name receives the name given.
QString newDim(ProjectDocument *document, const QString &path, int dim, QString *name = nullptr);
// A new derived Dim `name = a * root + b`, assigned to the leaf dimension.
QString newDerivedDim(ProjectDocument *document, const QString &path, int dim, const QString &name,
                      const QString &root, qint64 a, qint64 b);

} // namespace dimedits
} // namespace dimscope
