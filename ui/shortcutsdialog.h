// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>

class QAction;
class QTableWidget;

namespace dimscope {

// Help > Keyboard Shortcuts: every action of the window that has a shortcut (read from
// the actions themselves, so the list cannot go stale), then the keys that work
// inside a panel.
class ShortcutsDialog : public QDialog
{
    Q_OBJECT
public:
    ShortcutsDialog(const QList<QAction *> &actions, QWidget *parent = nullptr);

    QTableWidget *table() const { return m_table; }

private:
    void addRow(const QString &what, const QString &keys);

    QTableWidget *m_table;
};

} // namespace dimscope
