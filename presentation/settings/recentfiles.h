// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>

class QSettings;

namespace dimscope {

// The most recently opened files, newest first, at most maxCount, kept in QSettings.
// Files that no longer exist are dropped whenever the list is read.
class RecentFiles
{
public:
    static constexpr int maxCount = 9;

    explicit RecentFiles(QSettings &settings);

    QStringList files() const; // pruned of missing files (and the pruning is saved)
    void add(const QString &path);
    void remove(const QString &path);
    void clear();

private:
    void store(const QStringList &files) const;
    QSettings &m_settings;
};

} // namespace dimscope
