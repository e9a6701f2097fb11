// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constraints/constraintset.h"

#include <QUndoCommand>

namespace dimscope {

class ProjectDocument;

// One constraint edit: holds the exact sets before and after, so undo/redo restore
// them bit for bit whatever the edit was.
class ConstraintSetCommand : public QUndoCommand
{
public:
    ConstraintSetCommand(ProjectDocument *document, const QString &text, ConstraintSet before, ConstraintSet after);
    void undo() override;
    void redo() override;

private:
    ProjectDocument *m_document;
    ConstraintSet m_before;
    ConstraintSet m_after;
};

} // namespace dimscope
