// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QString>

class QAbstractItemModel;

namespace dimscope {

// A table model's rows as text: RFC 4180 CSV for files, tab-separated text for the
// clipboard (what spreadsheets paste into cells). Both start with the header row and
// take each cell's DisplayRole text; `rows` are the top-level rows to write (a view
// passes those it shows), every row without it.
class TableCsv
{
public:
    // CRLF-terminated records; a field with a comma, a quote or a line break is quoted,
    // its quotes doubled.
    static QString csv(const QAbstractItemModel &model, const QList<int> &rows);
    static QString csv(const QAbstractItemModel &model) { return csv(model, allRows(model)); }
    // One line per row, cells separated by tabs; tabs and line breaks inside a cell
    // become spaces (they would split it).
    static QString tabSeparated(const QAbstractItemModel &model, const QList<int> &rows);
    // Writes csv() as UTF-8 to `path` atomically (AtomicFile: the old file stays whole
    // when writing fails, a full disk included). False with `error` naming the file and
    // the cause.
    static bool save(const QAbstractItemModel &model, const QList<int> &rows, const QString &path, QString *error);

    static QString csvField(const QString &text);
    static QList<int> allRows(const QAbstractItemModel &model);

private:
    static QList<QStringList> records(const QAbstractItemModel &model, const QList<int> &rows);
};

} // namespace dimscope
