// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "project/projectfile.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLabel;
class QTreeWidget;

namespace dimscope {

class ProjectDocument;

// Export > Export Options…: which captured call is the example input and whether
// torch.export runs strict. Kept in the document (and so in the project file).
// Before an export it also shows ExportHints: Dims equal in every call (merge
// candidates) and every call as the example, with the Dims that are 0 or 1 in it.
class ExportOptionsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ExportOptionsDialog(const ProjectDocument *document, QWidget *parent = nullptr);

    ExportOptions options() const;
    QComboBox *exampleCallBox() const { return m_example; }
    QCheckBox *strictBox() const { return m_strict; }
    QLabel *mergeHintsLabel() const { return m_mergeHints; }
    QTreeWidget *callsView() const { return m_calls; }

private:
    void addHints(const ProjectDocument *document);
    // Marks the row of the call the export would use (the combo's choice).
    void markExampleCall();

    ExportOptions m_initial;
    QComboBox *m_example;
    QCheckBox *m_strict;
    QCheckBox *m_fixLoop;
    QCheckBox *m_separatePrograms;
    int m_automatic = 0; // chooseExampleCall's choice, for "Automatic"
    QLabel *m_mergeHints;
    QTreeWidget *m_calls;
};

} // namespace dimscope
