// SPDX-License-Identifier: GPL-3.0-or-later
#include "shortcutsdialog.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>

namespace dimscope {

ShortcutsDialog::ShortcutsDialog(const QList<QAction *> &actions, QWidget *parent)
    : QDialog(parent), m_table(new QTableWidget(0, 2, this))
{
    setObjectName(QStringLiteral("shortcutsDialog"));
    setWindowTitle(tr("Keyboard Shortcuts"));
    m_table->setObjectName(QStringLiteral("shortcutsTable"));
    m_table->setHorizontalHeaderLabels({tr("Command"), tr("Keys")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setTabKeyNavigation(false);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    for (const QAction *a : actions) {
        if (a->shortcuts().isEmpty())
            continue;
        QStringList keys;
        for (const QKeySequence &k : a->shortcuts())
            keys << k.toString(QKeySequence::NativeText);
        addRow(a->text().remove(QLatin1Char('&')).remove(QStringLiteral("…")), keys.join(tr(" or ")));
    }
    // Keys handled by a panel itself, not by a window action.
    addRow(tr("Clear the inputs filter"), tr("Escape (in the filter)"));
    addRow(tr("Remove the selected Dim"), tr("Delete (in Dims)"));
    addRow(tr("Rename a Dim, edit a range"), tr("F2 (in Dims)"));
    addRow(tr("Open the selected recent file"), tr("Enter (on the welcome page)"));
    addRow(tr("Next / previous panel"), tr("Tab / Shift+Tab"));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    resize(520, 560);
}

void ShortcutsDialog::addRow(const QString &what, const QString &keys)
{
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    m_table->setItem(row, 0, new QTableWidgetItem(what));
    m_table->setItem(row, 1, new QTableWidgetItem(keys));
}

} // namespace dimscope
