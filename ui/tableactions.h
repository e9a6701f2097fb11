// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QList>

class QAbstractItemView;
class QAction;

namespace dimscope {

// Copy (Ctrl+C: the selected rows, or every shown row when none is selected, as
// tab-separated text with the header) and "Export as CSV…" (the shown rows, RFC 4180,
// written atomically) on a table or a flat tree, as its context menu. Rows a filter
// hid are left out of both. Owned by the view.
class TableActions : public QObject
{
    Q_OBJECT
public:
    // `name` is the table's name in the save dialog's title and the suggested file name.
    static TableActions *attach(QAbstractItemView *view, const QString &name);

    QAction *copyAction() const { return m_copy; }
    QAction *exportCsvAction() const { return m_exportCsv; }

    // The top-level rows the view shows (not hidden by a filter), in order.
    QList<int> shownRows() const;
    QList<int> selectedRows() const;
    void copy() const;
    // Without a dialog: false with `error` naming the file.
    bool exportCsv(const QString &path, QString *error) const;

private:
    TableActions(QAbstractItemView *view, const QString &name);
    void exportCsvWithDialog();
    bool isRowHidden(int row) const;

    QAbstractItemView *m_view;
    QString m_name;
    QAction *m_copy;
    QAction *m_exportCsv;
};

} // namespace dimscope
