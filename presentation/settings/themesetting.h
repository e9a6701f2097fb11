// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <optional>

namespace dimscope {

// The colour theme the user picked in Preferences: the platform's colours, or Fusion's
// light or dark palette whatever the platform's are.
enum class Theme { System, Light, Dark };

// Reading and writing the theme choice (QSettings, settings::ColourTheme). DIMSCOPE_THEME
// (system, light or dark) overrides the saved choice for one run, for screenshots and
// for trying a theme without changing Preferences.
class ThemeSetting
{
public:
    // The choice saved in Preferences (System when none is).
    static Theme saved();
    // What to apply: DIMSCOPE_THEME when it names a theme, else the saved choice.
    static Theme effective();
    static void write(Theme theme);
    // "system", "light", "dark" (case-insensitive); nothing for anything else.
    static std::optional<Theme> parse(const QString &text);
    static QString name(Theme theme);
};

} // namespace dimscope
