// SPDX-License-Identifier: GPL-3.0-or-later
#include "text/tablecsv.h"

#include "util/atomicfile.h"

#include <QAbstractItemModel>
#include <QCoreApplication>
#include <QRegularExpression>

namespace dimscope {

QList<QStringList> TableCsv::records(const QAbstractItemModel &model, const QList<int> &rows)
{
    const int columns = model.columnCount();
    QList<QStringList> out;
    QStringList header;
    for (int c = 0; c < columns; ++c)
        header << model.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString();
    out << header;
    for (int r : rows) {
        QStringList record;
        for (int c = 0; c < columns; ++c)
            record << model.index(r, c).data(Qt::DisplayRole).toString();
        out << record;
    }
    return out;
}

QList<int> TableCsv::allRows(const QAbstractItemModel &model)
{
    QList<int> rows;
    for (int r = 0; r < model.rowCount(); ++r)
        rows << r;
    return rows;
}

QString TableCsv::csvField(const QString &text)
{
    static const QRegularExpression special(QStringLiteral("[,\"\r\n]"));
    if (!text.contains(special))
        return text;
    return QLatin1Char('"') + QString(text).replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
}

QString TableCsv::csv(const QAbstractItemModel &model, const QList<int> &rows)
{
    QString out;
    for (const QStringList &record : records(model, rows)) {
        QStringList fields;
        for (const QString &cell : record)
            fields << csvField(cell);
        out += fields.join(QLatin1Char(',')) + QStringLiteral("\r\n");
    }
    return out;
}

QString TableCsv::tabSeparated(const QAbstractItemModel &model, const QList<int> &rows)
{
    static const QRegularExpression breaks(QStringLiteral("[\t\r\n]+"));
    QString out;
    for (const QStringList &record : records(model, rows)) {
        QStringList cells;
        for (const QString &cell : record)
            cells << QString(cell).replace(breaks, QStringLiteral(" "));
        out += cells.join(QLatin1Char('\t')) + QLatin1Char('\n');
    }
    return out;
}

bool TableCsv::save(const QAbstractItemModel &model, const QList<int> &rows, const QString &path, QString *error)
{
    QString why;
    if (!AtomicFile::write(path, csv(model, rows).toUtf8(), &why)) {
        *error = QCoreApplication::translate("dimscope::TableCsv", "Cannot write %1: %2").arg(path, why);
        return false;
    }
    return true;
}

} // namespace dimscope
