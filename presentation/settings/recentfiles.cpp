// SPDX-License-Identifier: GPL-3.0-or-later
#include "settings/recentfiles.h"

#include "settings/settingskeys.h"

#include <QFileInfo>
#include <QSettings>

namespace dimscope {

RecentFiles::RecentFiles(QSettings &settings) : m_settings(settings) {}

QStringList RecentFiles::files() const
{
    const QStringList stored = m_settings.value(settings::RecentFiles).toStringList();
    QStringList kept;
    for (const QString &f : stored) {
        if (QFileInfo(f).isFile() && !kept.contains(f) && kept.size() < maxCount)
            kept.append(f);
    }
    if (kept != stored)
        store(kept);
    return kept;
}

void RecentFiles::add(const QString &path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list = files();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > maxCount)
        list.removeLast();
    store(list);
}

void RecentFiles::remove(const QString &path)
{
    QStringList list = m_settings.value(settings::RecentFiles).toStringList();
    list.removeAll(QFileInfo(path).absoluteFilePath());
    store(list);
}

void RecentFiles::clear() { store({}); }

void RecentFiles::store(const QStringList &files) const { m_settings.setValue(settings::RecentFiles, files); }

} // namespace dimscope
