// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/loadedcapture.h"

#include <QSet>
#include <QWidget>

class QLabel;
class QLineEdit;
class QTimer;
class QTreeView;

namespace dimscope {

class InputsDecorator;
class InputsFilterProxy;
class InputsModel;
class ProjectDocument;

// The centre of the window: a debounced filter over key paths and the inputs tree.
class InputsView : public QWidget
{
    Q_OBJECT
public:
    explicit InputsView(QWidget *parent = nullptr);
    ~InputsView() override;

    InputsModel *model() const { return m_model; }
    InputsFilterProxy *proxy() const { return m_proxy; }
    QTreeView *tree() const { return m_tree; }
    QLineEdit *filterEdit() const { return m_filter; }

    void setLoaded(const LoadedCapturePtr &loaded);
    // Shows the document's capture (following captureChanged) decorated with its
    // constraints, validation and the selected Dim (InputsDecorator).
    void setDocument(ProjectDocument *document);
    // The Dim whose leaves are tinted (the Dims panel's selection).
    void setSelectedDim(const QString &name);
    void expandAll();
    void collapseAll();
    void focusFilter();
    // The selected node of the source model (-1 when none).
    int currentNode() const;

    // The dimension of the tensor leaf at `index` drawn under viewport position `pos`
    // in the shape or constraint column; -1 elsewhere.
    int dimAt(const QModelIndex &index, const QPoint &pos) const;

signals:
    void currentNodeChanged(int node);
    // Right click on a tensor leaf: its key path and the dimension under the cursor
    // (-1 when the click was not on one).
    void leafContextMenuRequested(const QString &path, int dim, const QPoint &globalPos);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void applyFilter();
    // "3 of 6 leaves shown" beside the filter, "No leaf matches “xyz”" over the tree.
    void showFilterStatus(const QString &text);
    // Key paths of the expanded containers, and expanding exactly those again.
    QSet<QString> expandedPaths() const;
    void expandPaths(const QSet<QString> &paths);
    void selectPath(const QString &path);

    InputsModel *m_model;
    InputsFilterProxy *m_proxy;
    QTreeView *m_tree;
    QLineEdit *m_filter;
    QTimer *m_filterTimer;
    QLabel *m_filterCount;
    QLabel *m_noMatch;          // over the tree's viewport
    QString m_appliedFilter;
    QSet<QString> m_expandedBeforeFilter;
    QString m_currentPath;      // the last leaf or container the user selected
    bool m_filtering = false;
    InputsDecorator *m_decorator = nullptr;
};

} // namespace dimscope
