// SPDX-License-Identifier: GPL-3.0-or-later
#include "tableactions.h"

#include "text/tablecsv.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QItemSelectionModel>
#include <QMessageBox>
#include <QTableView>
#include <QTreeView>

#include <algorithm>

namespace dimscope {

TableActions *TableActions::attach(QAbstractItemView *view, const QString &name)
{
    return new TableActions(view, name);
}

TableActions::TableActions(QAbstractItemView *view, const QString &name)
    : QObject(view), m_view(view), m_name(name), m_copy(new QAction(tr("Copy"), view)),
      m_exportCsv(new QAction(tr("Export as CSV…"), view))
{
    setObjectName(view->objectName() + QStringLiteral("Actions"));
    m_copy->setObjectName(view->objectName() + QStringLiteral("Copy"));
    m_copy->setShortcut(QKeySequence::Copy);
    // Ctrl+C belongs to the table with the focus, not to the window.
    m_copy->setShortcutContext(Qt::WidgetShortcut);
    m_copy->setToolTip(tr("Copy the selected rows with the header as tab-separated text"));
    m_exportCsv->setObjectName(view->objectName() + QStringLiteral("ExportCsv"));
    connect(m_copy, &QAction::triggered, this, &TableActions::copy);
    connect(m_exportCsv, &QAction::triggered, this, &TableActions::exportCsvWithDialog);
    view->addAction(m_copy);
    view->addAction(m_exportCsv);
    view->setContextMenuPolicy(Qt::ActionsContextMenu);
}

bool TableActions::isRowHidden(int row) const
{
    if (auto *table = qobject_cast<QTableView *>(m_view))
        return table->isRowHidden(row);
    if (auto *tree = qobject_cast<QTreeView *>(m_view))
        return tree->isRowHidden(row, QModelIndex());
    return false;
}

QList<int> TableActions::shownRows() const
{
    QList<int> rows;
    const int count = m_view->model() ? m_view->model()->rowCount() : 0;
    for (int r = 0; r < count; ++r)
        if (!isRowHidden(r))
            rows << r;
    return rows;
}

QList<int> TableActions::selectedRows() const
{
    QList<int> rows;
    if (!m_view->selectionModel())
        return rows;
    const QModelIndexList selected = m_view->selectionModel()->selectedIndexes();
    for (const QModelIndex &index : selected)
        if (!index.parent().isValid() && !rows.contains(index.row()) && !isRowHidden(index.row()))
            rows << index.row();
    std::sort(rows.begin(), rows.end());
    return rows;
}

void TableActions::copy() const
{
    if (!m_view->model())
        return;
    // The selection, else the whole table as shown.
    QList<int> rows = selectedRows();
    if (rows.isEmpty())
        rows = shownRows();
    QApplication::clipboard()->setText(TableCsv::tabSeparated(*m_view->model(), rows));
}

bool TableActions::exportCsv(const QString &path, QString *error) const
{
    if (!m_view->model()) {
        *error = tr("There is no table to export.");
        return false;
    }
    const QList<int> rows = shownRows();
    if (rows.isEmpty() && m_view->model()->rowCount() > 0) {
        *error = tr("No row is shown: clear the filter to export the table.");
        return false;
    }
    return TableCsv::save(*m_view->model(), rows, path, error);
}

void TableActions::exportCsvWithDialog()
{
    const QString suggested = QDir::home().filePath(QString(m_name).replace(QLatin1Char(' '), QLatin1Char('-')).toLower()
                                                    + QStringLiteral(".csv"));
    const QString path = QFileDialog::getSaveFileName(m_view->window(), tr("Export %1 as CSV").arg(m_name), suggested,
                                                      tr("CSV files (*.csv);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportCsv(path, &error))
        QMessageBox::warning(m_view->window(), tr("Export as CSV"), error);
}

} // namespace dimscope
