// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QIcon>
#include <QIconEngine>

namespace dimscope {

// A one-colour glyph (Qt's own black play triangle) drawn in the palette's button text
// colour at the moment it is painted, so that it follows the theme: black on a light
// toolbar, light grey on the dark one, the disabled grey when disabled. Qt's standard
// pixmap was black on the dark theme's #353535 (issue 28 problem 10).
class GlyphIcon : public QIconEngine
{
public:
    static QIcon from(const QIcon &glyph);

    void paint(QPainter *painter, const QRect &rect, QIcon::Mode mode, QIcon::State state) override;
    QPixmap pixmap(const QSize &size, QIcon::Mode mode, QIcon::State state) override;
    QSize actualSize(const QSize &size, QIcon::Mode mode, QIcon::State state) override;
    QIconEngine *clone() const override;

private:
    explicit GlyphIcon(const QIcon &glyph) : m_glyph(glyph) {}

    QIcon m_glyph;
};

} // namespace dimscope
