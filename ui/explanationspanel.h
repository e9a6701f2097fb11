// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/exportresult.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTreeView;

namespace dimscope {

class ElidedLabel;
class ExplanationsModel;

// "Why": torch's shape decisions of the last export (what it specialized, narrowed,
// tied or guarded, in Dim names) with the model line behind each. Selecting a decision
// or one of its frames shows that line in context in a read-only viewer; Open in
// Editor hands the file to the desktop's editor. Library frames are folded away until
// asked for; a Dim filter (from the Dims panel) keeps the decisions about one Dim.
class ExplanationsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ExplanationsPanel(QWidget *parent = nullptr);

    void setExplanations(const QVector<ShapeExplanation> &explanations);
    void clear() { setExplanations({}); }
    // Shows the decisions about Dim `name` (empty: all).
    void showDim(const QString &name);

    ExplanationsModel *model() const { return m_model; }
    QTreeView *view() const { return m_view; }
    QPlainTextEdit *sourceView() const { return m_source; }
    QLabel *headline() const { return m_headline; }
    QCheckBox *libraryFramesBox() const { return m_library; }
    QPushButton *openSourceButton() const { return m_open; }
    QPushButton *showAllButton() const { return m_showAll; }
    // The file and line the source viewer shows (empty when none).
    QString shownFile() const { return m_file; }
    int shownLine() const { return m_line; }

signals:
    // Open in Editor was asked for (the panel also opens it with QDesktopServices
    // unless a slot took it: tests connect here).
    void openSourceRequested(const QString &file, int line);

private:
    void updateHeadline();
    void showSourceOf(const QModelIndex &index);

    ExplanationsModel *m_model;
    QLabel *m_headline;
    QPushButton *m_showAll;
    QCheckBox *m_library;
    QTreeView *m_view;
    QPlainTextEdit *m_source;
    ElidedLabel *m_sourceTitle;
    QPushButton *m_open;
    QString m_file;
    int m_line = 0;
};

} // namespace dimscope
