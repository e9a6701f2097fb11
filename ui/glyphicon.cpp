// SPDX-License-Identifier: GPL-3.0-or-later
#include "glyphicon.h"

#include <QGuiApplication>
#include <QPainter>
#include <QPalette>

namespace dimscope {

QIcon GlyphIcon::from(const QIcon &glyph)
{
    return QIcon(new GlyphIcon(glyph));
}

QPixmap GlyphIcon::pixmap(const QSize &size, QIcon::Mode mode, QIcon::State state)
{
    // The glyph's shape (its alpha) from the normal pixmap, filled with the colour the
    // palette gives button text in this mode.
    QPixmap shape = m_glyph.pixmap(size, QIcon::Normal, state);
    if (shape.isNull())
        return shape;
    const QPalette::ColorGroup group = mode == QIcon::Disabled ? QPalette::Disabled : QPalette::Active;
    QPainter painter(&shape);
    painter.setCompositionMode(QPainter::CompositionMode_SourceIn);
    painter.fillRect(shape.rect(), QGuiApplication::palette().color(group, QPalette::ButtonText));
    return shape;
}

void GlyphIcon::paint(QPainter *painter, const QRect &rect, QIcon::Mode mode, QIcon::State state)
{
    const qreal ratio = painter->device() ? painter->device()->devicePixelRatioF() : 1.0;
    QPixmap p = pixmap(rect.size() * ratio, mode, state);
    p.setDevicePixelRatio(ratio);
    painter->drawPixmap(rect, p);
}

QSize GlyphIcon::actualSize(const QSize &size, QIcon::Mode mode, QIcon::State state)
{
    return m_glyph.actualSize(size, mode, state);
}

QIconEngine *GlyphIcon::clone() const
{
    return new GlyphIcon(m_glyph);
}

} // namespace dimscope
