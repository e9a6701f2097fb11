// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/comparisonmodel.h"

#include <QFont>

namespace dimscope {

namespace {

// internalId: 0 for a section row, section + 1 for an item row under it.
constexpr quintptr kSectionId = 0;

} // namespace

ComparisonModel::ComparisonModel(QObject *parent) : QAbstractItemModel(parent) {}

QString ComparisonModel::mark() { return QStringLiteral("≠"); }

void ComparisonModel::setComparison(const Comparison &comparison)
{
    beginResetModel();
    m_comparison = comparison;
    rebuild();
    endResetModel();
    emit headerDataChanged(Qt::Horizontal, AColumn, BColumn);
}

void ComparisonModel::setDifferencesOnly(bool only)
{
    if (only == m_differencesOnly)
        return;
    beginResetModel();
    m_differencesOnly = only;
    rebuild();
    endResetModel();
}

void ComparisonModel::rebuild()
{
    m_shown.clear();
    for (const Comparison::Section &section : m_comparison.sections) {
        QVector<int> rows;
        for (int i = 0; i < section.rows.size(); ++i)
            if (!m_differencesOnly || section.rows.at(i).differs)
                rows << i;
        m_shown << rows;
    }
}

QModelIndex ComparisonModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    if (!parent.isValid())
        return createIndex(row, column, kSectionId);
    return createIndex(row, column, quintptr(parent.row()) + 1);
}

QModelIndex ComparisonModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == kSectionId)
        return {};
    return createIndex(int(child.internalId() - 1), 0, kSectionId);
}

int ComparisonModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_shown.size());
    if (parent.internalId() != kSectionId || parent.column() != 0)
        return 0;
    return int(m_shown.at(parent.row()).size());
}

int ComparisonModel::columnCount(const QModelIndex &) const { return ColumnCount; }

QVariant ComparisonModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (index.internalId() == kSectionId)
        return sectionData(index.row(), index.column(), role);
    const int section = int(index.internalId() - 1);
    const int row = m_shown.at(section).at(index.row());
    return rowData(m_comparison.sections.at(section).rows.at(row), index.column(), role);
}

QVariant ComparisonModel::sectionData(int section, int column, int role) const
{
    const Comparison::Section &s = m_comparison.sections.at(section);
    const int differ = s.differenceCount();
    if (role == DiffersRole)
        return differ > 0;
    if (role == Qt::FontRole) {
        QFont font;
        font.setBold(true);
        return font;
    }
    if (role != Qt::DisplayRole)
        return {};
    if (column == MarkColumn)
        return differ > 0 ? mark() : QString();
    if (column == ItemColumn)
        return differ > 0 ? tr("%1 (%2 differ)").arg(s.title).arg(differ) : tr("%1 (same)").arg(s.title);
    return {};
}

QVariant ComparisonModel::rowData(const Comparison::Row &row, int column, int role) const
{
    switch (role) {
    case DiffersRole:
        return row.differs;
    case Qt::FontRole:
        if (row.differs) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case Qt::ToolTipRole:
        if (column == AColumn || column == BColumn)
            return column == AColumn ? row.a : row.b; // long texts (several programs) cut in the cell
        return row.differs ? tr("A and B differ") : QVariant();
    case Qt::DisplayRole:
        switch (column) {
        case MarkColumn: return row.differs ? mark() : QString();
        case ItemColumn: return row.item;
        case AColumn: return row.a;
        case BColumn: return row.b;
        }
        return {};
    default:
        return {};
    }
}

QVariant ComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return {};
    switch (section) {
    case MarkColumn: return role == Qt::ToolTipRole ? tr("≠: A and B differ") : QString();
    case ItemColumn: return tr("Item");
    case AColumn: return m_comparison.titleA.isEmpty() ? tr("A") : tr("A: %1").arg(m_comparison.titleA);
    case BColumn: return m_comparison.titleB.isEmpty() ? tr("B") : tr("B: %1").arg(m_comparison.titleB);
    }
    return {};
}

} // namespace dimscope
