// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/servedrangesmodel.h"

#include "models/dimcolours.h"

#include <QColor>
#include <QStringList>

#include <algorithm>

namespace dimscope {

namespace {

QString sizesText(const QVector<qint64> &sizes)
{
    QStringList parts;
    for (qint64 s : sizes)
        parts << QString::number(s);
    return parts.join(QStringLiteral(", "));
}

} // namespace

ServedRangesModel::ServedRangesModel(QObject *parent) : QAbstractTableModel(parent) {}

void ServedRangesModel::setPrograms(const QVector<ProgramProbes> &programs)
{
    beginResetModel();
    m_rows.clear();
    for (const auto &[program, probes] : programs) {
        for (const ProbedDim &dim : probes.dims) {
            Row row{program, dim, {}};
            std::copy_if(probes.probes.begin(), probes.probes.end(), std::back_inserter(row.probes),
                         [&dim](const RangeProbe &p) { return p.dim == dim.name; });
            m_rows.append(row);
        }
    }
    endResetModel();
}

int ServedRangesModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_rows.size()); }

int ServedRangesModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

// "1..64": the smallest and largest size served, recorded or probed.
QString ServedRangesModel::servedText(const Row &row)
{
    QVector<qint64> served = row.dim.served + row.dim.recorded;
    std::sort(served.begin(), served.end());
    if (served.isEmpty())
        return tr("none");
    return served.first() == served.last() ? QString::number(served.first())
                                           : QStringLiteral("%1..%2").arg(served.first()).arg(served.last());
}

// "1 (input_ids.size()[1] > 1; served by phase2); 16 WRONG"
QString ServedRangesModel::rejectedText(const Row &row)
{
    QStringList parts;
    for (const RangeProbe &p : row.probes) {
        if (p.status == QLatin1String("rejected"))
            parts << (p.servedBy.isEmpty() ? tr("%1 (%2)").arg(p.value).arg(p.guard)
                                           : tr("%1 (%2; served by %3)").arg(p.value).arg(p.guard, p.servedBy));
        else if (p.status == QLatin1String("mismatch"))
            parts << tr("%1 WRONG").arg(p.value);
        else if (p.status == QLatin1String("eager_failed"))
            parts << tr("%1 not verified").arg(p.value);
    }
    return parts.join(QStringLiteral("; "));
}

// Every probed size served here or, in an archive, by another program correctly.
bool ServedRangesModel::servedWhole(const Row &row)
{
    return std::all_of(row.probes.begin(), row.probes.end(), [](const RangeProbe &p) {
        return p.status == QLatin1String("served") || p.status == QLatin1String("skipped")
            || (p.status == QLatin1String("rejected") && p.servedByStatus == QLatin1String("served"));
    });
}

QVariant ServedRangesModel::display(const Row &row, int column) const
{
    switch (column) {
    case ProgramColumn:
        return row.program;
    case DimColumn:
        return row.dim.name;
    case DeclaredColumn:
        return QStringLiteral("%1..%2").arg(row.dim.declaredMin).arg(
            row.dim.declaredMax ? QString::number(*row.dim.declaredMax) : QStringLiteral("∞"));
    case RecordedColumn:
        return sizesText(row.dim.recorded);
    case ServedColumn:
        return servedText(row);
    case RejectedColumn:
        return rejectedText(row);
    }
    return {};
}

QVariant ServedRangesModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return display(row, index.column());
    case Qt::ToolTipRole: {
        QStringList lines{tr("Probed: %1 (cap %2: %3)").arg(sizesText(row.dim.probed)).arg(row.dim.cap).arg(row.dim.capSource)};
        for (const RangeProbe &p : row.probes)
            if (!p.message.isEmpty())
                lines << tr("%1 = %2: %3").arg(row.dim.name).arg(p.value).arg(p.message);
        return lines.join(QLatin1Char('\n'));
    }
    case Qt::ForegroundRole: {
        // Served whole needs no colour; a cut or wrong range is the warning red, lightened
        // on a dark base until it reads (no palette without a GUI).
        if (index.column() != ServedColumn || servedWhole(row))
            return {};
        return DimColours::readableOnBase(QColor(Qt::red));
    }
    case Qt::UserRole:
        return servedWhole(row);
    }
    return {};
}

QVariant ServedRangesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case ProgramColumn:
        return tr("Program");
    case DimColumn:
        return tr("Dim");
    case DeclaredColumn:
        return tr("Declared");
    case RecordedColumn:
        return tr("Recorded");
    case ServedColumn:
        return tr("Served");
    case RejectedColumn:
        return tr("Rejected or wrong");
    }
    return {};
}

} // namespace dimscope
