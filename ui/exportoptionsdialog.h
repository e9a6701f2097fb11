// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "project/projectfile.h"

#include <QDialog>

class QCheckBox;
class QComboBox;

namespace dimscope {

class ProjectDocument;

// Export > Export Options…: which captured call is the example input and whether
// torch.export runs strict. Kept in the document (and so in the project file).
class ExportOptionsDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ExportOptionsDialog(const ProjectDocument *document, QWidget *parent = nullptr);

    ExportOptions options() const;
    QComboBox *exampleCallBox() const { return m_example; }
    QCheckBox *strictBox() const { return m_strict; }

private:
    ExportOptions m_initial;
    QComboBox *m_example;
    QCheckBox *m_strict;
    QCheckBox *m_fixLoop;
};

} // namespace dimscope
