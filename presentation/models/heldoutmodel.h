// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/heldoutreplay.h"

#include <QAbstractTableModel>

namespace dimscope {

// The held-out calls of an export (Export > Verify With Another Capture…, the CLI's
// --verify-with): one row per call of the second capture, the program that served it
// or the guard each program rejected it with, and how far the served outputs are from
// the eager model's. A call served wrong, or that no program takes, is the user's to
// see first: its status is in the warning colour; a served call has none.
class HeldOutModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { CallColumn, StatusColumn, ProgramColumn, MaxAbsColumn, DetailColumn, ColumnCount };

    explicit HeldOutModel(QObject *parent = nullptr);

    void setReplay(const HeldOutReplay &replay);
    void clear() { setReplay({}); }
    const HeldOutReplay &replay() const { return m_replay; }

    // "served", "rejected by every program", "WRONG", ...
    static QString statusText(const QString &status);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString detailText(const HeldOutCall &call) const;
    QString toolTipText(const HeldOutCall &call) const;

    HeldOutReplay m_replay;
};

} // namespace dimscope
