// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "compare/comparison.h"

#include <QDialog>
#include <QPointer>

class QCheckBox;
class QComboBox;
class QLabel;
class QTreeView;

namespace dimscope {

class ComparisonModel;
class ExportResults;

// Compare (issue 28, problem 12): two exports of the document, picked from its
// history (Export > Compare Exports…), or two captures (File > Compare Captures…),
// side by side in a tree with the differences marked, "Differences only" to hide the
// rest. Not modal: the window stays usable; the exports' pickers follow the history.
class CompareDialog : public QDialog
{
    Q_OBJECT
public:
    explicit CompareDialog(QWidget *parent = nullptr);
    ~CompareDialog() override;

    // Exports: the pickers list `results`' history (A: the one before the last, B:
    // the last) and follow it. `results` outlives the dialog.
    void showExports(const ExportResults *results);
    // Captures (or anything compared once): no pickers.
    void showComparison(const Comparison &comparison);

    ComparisonModel *model() const { return m_model; }

private:
    void fillPickers();
    void compareChosen();
    void showSummary();

    QPointer<const ExportResults> m_results;
    ComparisonModel *m_model;
    QComboBox *m_a;
    QComboBox *m_b;
    QWidget *m_pickers;
    QCheckBox *m_differencesOnly;
    QTreeView *m_view;
    QLabel *m_summary;
};

} // namespace dimscope
