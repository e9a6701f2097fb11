// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStyledItemDelegate>

namespace dimscope {

// Edits a Dims table cell in a line edit that checks the text as the user types
// (DimsModel::checkEdit: the ConstraintSet's own rules) and marks it red with the
// reason while it would be refused; reasons go out through editProblem().
class DimEditDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    explicit DimEditDelegate(QObject *parent = nullptr);

    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    void setEditorData(QWidget *editor, const QModelIndex &index) const override;
    void setModelData(QWidget *editor, QAbstractItemModel *model, const QModelIndex &index) const override;

signals:
    void editProblem(const QString &reason) const; // empty: the text is fine
};

} // namespace dimscope
