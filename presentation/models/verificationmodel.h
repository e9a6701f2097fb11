// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/exportresult.h"

#include <QAbstractTableModel>
#include <QHash>

namespace dimscope {

// The verification table of an export: one row per captured call, whether the
// exported program accepted it and how far its outputs are from the eager model's.
// A call this program rejects and another program of the export serves reads "served
// by llava.phase2.pt2" in the palette's colour, not a red rejection; a call no program
// serves says why in dimscope's words (UnservedAdvice::rejectionReason).
class VerificationModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { CallColumn, StatusColumn, MaxAbsColumn, MaxRelColumn, DetailColumn, ColumnCount };

    explicit VerificationModel(QObject *parent = nullptr);

    // `servedElsewhere`: call -> the other program that serves it (UnservedAdvice::programName).
    void setVerification(const QVector<CallVerification> &rows, int exampleCall,
                         const QHash<int, QString> &servedElsewhere = {});
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
    QVariant servedElsewhereData(const CallVerification &v, const QString &server, int column, int role) const;

    QVector<CallVerification> m_rows;
    int m_exampleCall = -1;
    QHash<int, QString> m_servedElsewhere;
};

} // namespace dimscope
