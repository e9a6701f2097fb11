// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "compare/comparison.h"

#include <QAbstractItemModel>

namespace dimscope {

// A Comparison as a tree (issue 28, problem 12): a row per section ("Ranges per Dim
// (2 differ)"), under it a row per item with what A and B have; a row whose sides
// differ is marked "≠" in its own column and in bold. Differences only hides the rows
// that do not differ (the sections stay, with their counts).
class ComparisonModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { MarkColumn, ItemColumn, AColumn, BColumn, ColumnCount };
    enum Role { DiffersRole = Qt::UserRole + 1 };

    explicit ComparisonModel(QObject *parent = nullptr);

    void setComparison(const Comparison &comparison);
    const Comparison &comparison() const { return m_comparison; }
    void setDifferencesOnly(bool only);
    bool differencesOnly() const { return m_differencesOnly; }
    // "≠": the mark of a row whose sides differ.
    static QString mark();

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    void rebuild();
    QVariant sectionData(int section, int column, int role) const;
    QVariant rowData(const Comparison::Row &row, int column, int role) const;

    Comparison m_comparison;
    bool m_differencesOnly = false;
    QVector<QVector<int>> m_shown; // per section: the indices of its rows shown
};

} // namespace dimscope
