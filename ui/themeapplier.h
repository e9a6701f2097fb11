// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "settings/themesetting.h"

#include <QPalette>

namespace dimscope {

// Puts a Theme on the running application: Light and Dark use the Fusion style with its
// light palette or a dark one; System goes back to the style the platform chose and a
// palette resolved entirely against the platform's (so that it keeps following the
// desktop when that switches). Every widget gets QEvent::PaletteChange, on which the
// custom-drawn views (the plot, the message banner) recolour themselves.
class ThemeApplier
{
public:
    // At start-up, after QApplication exists: ThemeSetting::effective().
    static void applyEffective();
    static void apply(Theme theme);
    // Window, text, base, highlight... of the dark theme: text stays >= 7:1 against its
    // background (WCAG AAA), links and highlights readable on the dark base.
    static QPalette darkPalette();

private:
    static void rememberPlatformStyle();
};

} // namespace dimscope
