// SPDX-License-Identifier: GPL-3.0-or-later
#include "settings/themesetting.h"

#include "settings/settingskeys.h"

#include <QSettings>

namespace dimscope {

Theme ThemeSetting::saved() { return parse(QSettings().value(settings::ColourTheme).toString()).value_or(Theme::System); }

Theme ThemeSetting::effective()
{
    if (const auto fromEnvironment = parse(qEnvironmentVariable("DIMSCOPE_THEME")))
        return *fromEnvironment;
    return saved();
}

void ThemeSetting::write(Theme theme) { QSettings().setValue(settings::ColourTheme, name(theme)); }

std::optional<Theme> ThemeSetting::parse(const QString &text)
{
    for (Theme theme : {Theme::System, Theme::Light, Theme::Dark})
        if (text.trimmed().compare(name(theme), Qt::CaseInsensitive) == 0)
            return theme;
    return std::nullopt;
}

QString ThemeSetting::name(Theme theme)
{
    switch (theme) {
    case Theme::Light: return QStringLiteral("light");
    case Theme::Dark: return QStringLiteral("dark");
    case Theme::System: break;
    }
    return QStringLiteral("system");
}

} // namespace dimscope
