// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/constraintsetcommand.h"

#include "document/projectdocument.h"

namespace dimscope {

ConstraintSetCommand::ConstraintSetCommand(ProjectDocument *document, const QString &text, ConstraintSet before,
                                           ConstraintSet after)
    : QUndoCommand(text), m_document(document), m_before(std::move(before)), m_after(std::move(after))
{
}

void ConstraintSetCommand::undo()
{
    m_document->applyConstraints(m_before);
}

void ConstraintSetCommand::redo()
{
    m_document->applyConstraints(m_after);
}

} // namespace dimscope
