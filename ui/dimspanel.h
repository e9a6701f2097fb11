// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QAction;
class QInputDialog;
class QLabel;
class QLineEdit;
class QTableView;
class QToolBar;

namespace dimscope {

class DimsModel;
class ProjectDocument;

// The Dims dock: the table of Dims with in-place editing, and add / rename / delete /
// merge, every change one undo step of the document.
class DimsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit DimsPanel(ProjectDocument *document, QWidget *parent = nullptr);
    ~DimsPanel() override;

    DimsModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QString currentDim() const;
    void selectDim(const QString &name);
    QAction *addAction() const { return m_add; }
    QAction *renameAction() const { return m_rename; }
    QAction *deleteAction() const { return m_delete; }
    QAction *mergeAction() const { return m_merge; }
    QLabel *problemLabel() const { return m_problem; }
    QLineEdit *filterEdit() const { return m_filter; }
    // Focuses the Dims table (for a "focus the Dims dock" shortcut of the window).
    void focusTable();

    // The width that shows every column of the Dims whole (Status on one line).
    int neededWidth() const;

signals:
    void dimSelected(const QString &name); // empty when none
    // The Dims after a reset need `width` pixels, more than the panel has (neededWidth()).
    void wantsWidth(int width);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void setUpFilter();
    void setUpTable();
    void fitColumns();
    void setUpProblemLabel();
    QToolBar *makeToolBar();
    void layOut(QToolBar *bar);
    void followModel(ProjectDocument *document);
    void showProblem(const QString &text);
    void mergeSelected();
    // The Dim the user picks to merge into `keep` (empty when cancelled).
    QString askWhichToMerge(const QString &keep);
    int titleBarWidth(const QString &title) const;
    void updateActions();
    // dimSelected(currentDim()) when it differs from the last one announced.
    void announceSelection();
    void applyFilter();

    DimsModel *m_model;
    QTableView *m_table;
    QLineEdit *m_filter;
    QLabel *m_filterCount;
    QLabel *m_problem;
    QAction *m_add;
    QAction *m_rename;
    QAction *m_delete;
    QAction *m_merge;
    QString m_announced;    // the Dim last sent with dimSelected
};

} // namespace dimscope
