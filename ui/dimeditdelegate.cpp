// SPDX-License-Identifier: GPL-3.0-or-later
#include "dimeditdelegate.h"

#include "models/dimsmodel.h"

#include <QLineEdit>
#include <QPersistentModelIndex>

namespace dimscope {

DimEditDelegate::DimEditDelegate(QObject *parent) : QStyledItemDelegate(parent) {}

QWidget *DimEditDelegate::createEditor(QWidget *parent, const QStyleOptionViewItem &, const QModelIndex &index) const
{
    auto *edit = new QLineEdit(parent);
    edit->setObjectName(QStringLiteral("dimEditor"));
    edit->setFrame(false);
    const auto *model = qobject_cast<const DimsModel *>(index.model());
    const QPersistentModelIndex where(index);
    connect(edit, &QLineEdit::textEdited, edit, [this, edit, model, where](const QString &text) {
        if (!model || !where.isValid())
            return;
        const QString problem = model->checkEdit(where, text);
        edit->setStyleSheet(problem.isEmpty() ? QString() : QStringLiteral("QLineEdit { background: #fde0dc; color: #b71c1c; }"));
        edit->setToolTip(problem);
        emit editProblem(problem);
    });
    return edit;
}

void DimEditDelegate::setEditorData(QWidget *editor, const QModelIndex &index) const
{
    if (auto *edit = qobject_cast<QLineEdit *>(editor))
        edit->setText(index.data(Qt::EditRole).toString());
}

void DimEditDelegate::setModelData(QWidget *editor, QAbstractItemModel *model, const QModelIndex &index) const
{
    auto *edit = qobject_cast<QLineEdit *>(editor);
    if (!edit)
        return;
    // Refused edits are not applied; the model reports why (DimsModel::editRejected).
    if (index.data(Qt::EditRole).toString() != edit->text())
        model->setData(index, edit->text(), Qt::EditRole);
    else
        emit editProblem(QString());
}

} // namespace dimscope
