// SPDX-License-Identifier: GPL-3.0-or-later
#include "themeapplier.h"

#include <QApplication>
#include <QStyle>
#include <QStyleFactory>

namespace dimscope {

namespace {
// The style the platform gave the application before a theme changed it (System).
QString &platformStyleName()
{
    static QString name;
    return name;
}

void setStyleNamed(const QString &name)
{
    if (QApplication::style()->name().compare(name, Qt::CaseInsensitive) == 0)
        return;
    if (QStyle *style = QStyleFactory::create(name))
        QApplication::setStyle(style);
}
} // namespace

void ThemeApplier::rememberPlatformStyle()
{
    if (platformStyleName().isEmpty())
        platformStyleName() = QApplication::style()->name();
}

void ThemeApplier::applyEffective()
{
    rememberPlatformStyle();
    // At start-up System needs nothing: the platform's style and palette are in place.
    if (const Theme theme = ThemeSetting::effective(); theme != Theme::System)
        apply(theme);
}

void ThemeApplier::apply(Theme theme)
{
    rememberPlatformStyle();
    switch (theme) {
    case Theme::System:
        setStyleNamed(platformStyleName());
        // No role set: every colour comes from the platform (and follows it).
        QApplication::setPalette(QPalette());
        return;
    case Theme::Light:
        setStyleNamed(QStringLiteral("Fusion"));
        QApplication::setPalette(QApplication::style()->standardPalette());
        return;
    case Theme::Dark:
        setStyleNamed(QStringLiteral("Fusion"));
        QApplication::setPalette(darkPalette());
        return;
    }
}

QPalette ThemeApplier::darkPalette()
{
    const QColor window(0x2b, 0x2b, 0x2b), base(0x1e, 0x1e, 0x1e), alternate(0x26, 0x26, 0x26);
    const QColor text(0xe8, 0xe8, 0xe8), disabledText(0x80, 0x80, 0x80);
    const QColor highlight(0x3d, 0x8e, 0xe0), link(0x6c, 0xb4, 0xff);
    QPalette p;
    p.setColor(QPalette::Window, window);
    p.setColor(QPalette::WindowText, text);
    p.setColor(QPalette::Base, base);
    p.setColor(QPalette::AlternateBase, alternate);
    p.setColor(QPalette::ToolTipBase, QColor(0x3a, 0x3a, 0x3a));
    p.setColor(QPalette::ToolTipText, text);
    p.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
    p.setColor(QPalette::Text, text);
    p.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    p.setColor(QPalette::ButtonText, text);
    p.setColor(QPalette::BrightText, QColor(0xff, 0x6b, 0x6b));
    p.setColor(QPalette::Light, QColor(0x4a, 0x4a, 0x4a));
    p.setColor(QPalette::Midlight, QColor(0x40, 0x40, 0x40));
    p.setColor(QPalette::Mid, QColor(0x5a, 0x5a, 0x5a));
    p.setColor(QPalette::Dark, QColor(0x18, 0x18, 0x18));
    p.setColor(QPalette::Shadow, QColor(0x0a, 0x0a, 0x0a));
    p.setColor(QPalette::Highlight, highlight);
    p.setColor(QPalette::HighlightedText, QColor(0xff, 0xff, 0xff));
    p.setColor(QPalette::Link, link);
    p.setColor(QPalette::LinkVisited, QColor(0xb3, 0x9d, 0xf0));
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, disabledText);
    p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(0x50, 0x50, 0x50));
    p.setColor(QPalette::Disabled, QPalette::Base, window);
    return p;
}

} // namespace dimscope
