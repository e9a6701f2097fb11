// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStyledItemDelegate>

namespace dimscope {

// Draws "2 x 4 x [5..9] x 8" with each dim in the colour of its Dim (dynamic dims in
// bold), from InputsModel's ShapePartsRole and DimColoursRole.
class ShapeDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    explicit ShapeDelegate(QObject *parent = nullptr);
    ~ShapeDelegate() override;

    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    // At least as high as a row with an icon (a violation's, in the name column): the
    // tree's rows are uniform, and one icon appearing made every row jump in height.
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace dimscope
