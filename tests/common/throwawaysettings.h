// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

class QTemporaryDir;

namespace dimscope::test {

// Points QSettings (INI format, user scope) into `dir` under the organization
// "dimscope-tests" and `application`, so that a GUI suite's recent files, layouts
// and choices are its own: never the user's, nor another suite's, nor the previous
// run's. For a suite's initTestCase; false when `dir` could not be made.
[[nodiscard]] bool useThrowawaySettings(const QTemporaryDir &dir, const QString &application);

} // namespace dimscope::test
