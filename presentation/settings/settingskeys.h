// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLatin1String>

namespace dimscope::settings {

// QSettings keys, in one place so that a rename cannot miss a reader.
inline constexpr QLatin1String Geometry{"mainWindow/geometry"};
inline constexpr QLatin1String WindowState{"mainWindow/state"};
inline constexpr QLatin1String RecentFiles{"files/recent"};
inline constexpr QLatin1String LastCaptureFolder{"files/lastCaptureFolder"};
inline constexpr QLatin1String LastProjectFolder{"files/lastProjectFolder"};
inline constexpr QLatin1String LastPlotFolder{"files/lastPlotFolder"};
inline constexpr QLatin1String PythonInterpreter{"python/interpreter"};
// "system", "light" or "dark" (ThemeSetting).
inline constexpr QLatin1String ColourTheme{"appearance/theme"};
inline constexpr QLatin1String LastModelFolder{"files/lastModelFolder"};
inline constexpr QLatin1String LastExportFolder{"files/lastExportFolder"};
// ["canonical project path", "resolved model reference", "SHA-256 of a model file"]
// (compact JSON, one string each) the user agreed to run (ModelConsent). The older
// "security/approvedProjectModels", keyed on the reference's text, is no longer read.
inline constexpr QLatin1String ApprovedModels{"security/approvedModels"};

// Bumped when the dock layout changes, so that an old saved layout is ignored
// rather than restored into the wrong docks.
inline constexpr int WindowStateVersion = 2;

} // namespace dimscope::settings
