// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/phasedexportoutcome.h"

#include <QAbstractTableModel>

namespace dimscope {

// The programs one export produced (PhasedExport): a row per .pt2 with the captured
// calls it serves, what sets those calls apart (the phase), and the fixes torch
// suggested that were applied to export it.
class ProgramsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { FileColumn, CallsColumn, PhaseColumn, FixesColumn, ColumnCount };

    explicit ProgramsModel(QObject *parent = nullptr);

    void setPrograms(const QVector<ExportedProgram> &programs);
    void clear() { setPrograms({}); }
    const QVector<ExportedProgram> &programs() const { return m_programs; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVector<ExportedProgram> m_programs;
};

} // namespace dimscope
