// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QString>

namespace dimscope {

class InputsModel;
class ProjectDocument;

// Keeps the inputs tree in step with the document: each leaf's constraint column and
// dim colours from the ConstraintSet, violation marks from the validation report, and
// the leaves of the Dim selected in the Dims panel tinted, torch's decisions about each
// leaf's Dims in the last export.
class InputsDecorator : public QObject
{
    Q_OBJECT
public:
    InputsDecorator(ProjectDocument *document, InputsModel *model, QObject *parent = nullptr);

    void refresh(); // after the model was (re)loaded: it forgets its decorations
    void setSelectedDim(const QString &name);
    QString selectedDim() const { return m_selectedDim; }
    // The constraint column's text for a static dim whose size changes between calls.
    static QString staticVaryingLabel();

private:
    void applyConstraints();
    void applyValidation();
    void applyExplanations();
    void applyHighlight();

    ProjectDocument *m_document;
    InputsModel *m_model;
    QString m_selectedDim;
};

} // namespace dimscope
