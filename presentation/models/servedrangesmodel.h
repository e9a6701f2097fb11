// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/rangeprobes.h"

#include <QAbstractTableModel>
#include <QPair>
#include <QVector>

namespace dimscope {

// The program view's "Served ranges" table (issue 24 item 3): one row per Dim of each
// exported program, the range it declares, the sizes recorded, the sizes probed that it
// served, and each size it rejected with torch's guard (and the archive's program that
// serves it instead) or got WRONG. A Dim whose range the program does not serve whole
// is in the warning colour; one served whole has none. Probing reports only: nothing
// here changes a program.
class ServedRangesModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { ProgramColumn, DimColumn, DeclaredColumn, RecordedColumn, ServedColumn, RejectedColumn, ColumnCount };
    using ProgramProbes = QPair<QString, RangeProbes>; // program name ("model", "phase2"), its probes

    explicit ServedRangesModel(QObject *parent = nullptr);

    void setPrograms(const QVector<ProgramProbes> &programs);
    void clear() { setPrograms({}); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString program;
        ProbedDim dim;
        QVector<RangeProbe> probes; // this Dim's
    };
    static QString servedText(const Row &row);
    static QString rejectedText(const Row &row);
    static bool servedWhole(const Row &row);
    QVariant display(const Row &row, int column) const;

    QVector<Row> m_rows;
};

} // namespace dimscope
