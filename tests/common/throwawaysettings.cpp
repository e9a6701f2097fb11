// SPDX-License-Identifier: GPL-3.0-or-later
#include "throwawaysettings.h"

#include <QCoreApplication>
#include <QSettings>
#include <QTemporaryDir>

namespace dimscope::test {

bool useThrowawaySettings(const QTemporaryDir &dir, const QString &application)
{
    if (!dir.isValid())
        return false;
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir.path());
    QCoreApplication::setOrganizationName(QStringLiteral("dimscope-tests"));
    QCoreApplication::setApplicationName(application);
    return true;
}

} // namespace dimscope::test
