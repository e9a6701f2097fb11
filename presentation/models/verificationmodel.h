// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/exportresult.h"

#include <QAbstractTableModel>

namespace dimscope {

// The verification table of an export: one row per captured call, whether the
// exported program accepted it and how far its outputs are from the eager model's.
class VerificationModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { CallColumn, StatusColumn, MaxAbsColumn, MaxRelColumn, DetailColumn, ColumnCount };

    explicit VerificationModel(QObject *parent = nullptr);

    void setVerification(const QVector<CallVerification> &rows, int exampleCall);
    void clear() { setVerification({}, -1); }
    const QVector<CallVerification> &rows() const { return m_rows; }
    int acceptedCount() const;

    // "accepted", "rejected", "output mismatch", "eager model failed"
    static QString statusText(const QString &status);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVector<CallVerification> m_rows;
    int m_exampleCall = -1;
};

} // namespace dimscope
