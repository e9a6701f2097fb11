// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pt2/pt2dimmapper.h"
#include "pt2/pt2program.h"

#include <QAbstractTableModel>

#include <optional>

namespace dimscope {

// The user inputs of an exported program (.pt2): one row per input with its dtype,
// its sizes as torch wrote them (s0, s1 + 1) and, when the user's constraints are
// known, the same sizes in the user's Dim names. A dim the user wanted dynamic that
// torch made a constant is flagged (red, with a note).
class Pt2InputsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { InputColumn, DtypeColumn, DimsColumn, SymbolsColumn, DeviceColumn, NoteColumn, ColumnCount };
    enum Role {
        FlaggedDimsRole = Qt::UserRole + 1, // QList<int>: dims specialized against the user's wish
        PathRole                            // the input's key path (or placeholder name)
    };

    explicit Pt2InputsModel(QObject *parent = nullptr);

    void setProgram(const Pt2Program &program, const std::optional<Pt2DimMapping> &mapping = std::nullopt);
    void clear();
    int flaggedCount() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        QString label;
        QString dtype;
        QString named;
        QString symbolic;
        QString device;
        QString note;
        QList<int> flagged;
    };
    QVector<Row> m_rows;
};

} // namespace dimscope
