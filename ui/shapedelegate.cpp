// SPDX-License-Identifier: GPL-3.0-or-later
#include "shapedelegate.h"

#include "models/dimcolours.h"
#include "models/inputsmodel.h"

#include <QApplication>
#include <QPainter>

#include <algorithm>

namespace dimscope {

ShapeDelegate::ShapeDelegate(QObject *parent) : QStyledItemDelegate(parent) {}

ShapeDelegate::~ShapeDelegate() = default;

void ShapeDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const QStringList parts = index.data(InputsModel::ShapePartsRole).toStringList();
    const QVariantList colours = index.data(InputsModel::DimColoursRole).toList();
    if (parts.isEmpty()) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    opt.text.clear();
    const QWidget *widget = opt.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

    const QRect textRect = style->subElementRect(QStyle::SE_ItemViewItemText, &opt, widget);
    const bool selected = opt.state & QStyle::State_Selected;
    const QColor plain = opt.palette.color(selected ? QPalette::HighlightedText : QPalette::Text);
    QFont bold = opt.font;
    bold.setBold(true);
    const QString separator = QStringLiteral(" x ");

    painter->save();
    painter->setClipRect(textRect);
    int x = textRect.left();
    for (int d = 0; d < parts.size(); ++d) {
        if (d > 0) {
            painter->setFont(opt.font);
            painter->setPen(plain);
            painter->drawText(QRect(x, textRect.top(), textRect.right() - x, textRect.height()),
                              Qt::AlignVCenter | Qt::AlignLeft, separator);
            x += QFontMetrics(opt.font).horizontalAdvance(separator);
        }
        const QColor c = colours.value(d).value<QColor>();
        const QFont &font = c.isValid() ? bold : opt.font;
        painter->setFont(font);
        // Dim colours are picked for a light background; the dark theme lightens them.
        painter->setPen(c.isValid() && !selected ? DimColours::readableOn(c, opt.palette.color(QPalette::Base)) : plain);
        painter->drawText(QRect(x, textRect.top(), textRect.right() - x, textRect.height()),
                          Qt::AlignVCenter | Qt::AlignLeft, parts.at(d));
        x += QFontMetrics(font).horizontalAdvance(parts.at(d));
        if (x > textRect.right())
            break;
    }
    painter->restore();
}

QSize ShapeDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const QSize hint = QStyledItemDelegate::sizeHint(option, index);
    QStyleOptionViewItem withIcon(option);
    initStyleOption(&withIcon, index);
    withIcon.features |= QStyleOptionViewItem::HasDecoration;
    withIcon.decorationSize = option.decorationSize;
    const QStyle *style = option.widget ? option.widget->style() : QApplication::style();
    const QSize iconRow = style->sizeFromContents(QStyle::CT_ItemViewItem, &withIcon, QSize(), option.widget);
    return QSize(hint.width(), std::max(hint.height(), iconRow.height()));
}

} // namespace dimscope
