// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/verificationmodel.h"

#include "models/dimcolours.h"

#include "text/unservedadvice.h"

#include <QColor>
#include <QStringList>

namespace dimscope {

VerificationModel::VerificationModel(QObject *parent) : QAbstractTableModel(parent) {}

void VerificationModel::setVerification(const QVector<CallVerification> &rows, int exampleCall,
                                        const QHash<int, QString> &servedElsewhere)
{
    beginResetModel();
    m_rows = rows;
    m_exampleCall = exampleCall;
    m_servedElsewhere = servedElsewhere;
    endResetModel();
}

int VerificationModel::acceptedCount() const
{
    int n = 0;
    for (const CallVerification &v : m_rows)
        n += v.ok() ? 1 : 0;
    return n;
}

QString VerificationModel::statusText(const QString &status)
{
    if (status == QLatin1String("ok"))
        return tr("accepted");
    if (status == QLatin1String("rejected"))
        return tr("rejected");
    if (status == QLatin1String("mismatch"))
        return tr("output mismatch");
    if (status == QLatin1String("eager_failed"))
        return tr("eager model failed");
    if (status == QLatin1String("rebuilt_differs"))
        return tr("rebuilt call differs from recording");
    return status;
}

int VerificationModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : m_rows.size(); }

int VerificationModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

static QString diffText(double value) { return QString::number(value, 'g', 3); }

QVariant VerificationModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const CallVerification &v = m_rows.at(index.row());
    // Rejected here, served by another program: that program's call, not a failure.
    const QString server = v.ok() ? QString() : m_servedElsewhere.value(v.call);
    if (!server.isEmpty())
        return servedElsewhereData(v, server, index.column(), role);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case CallColumn:
            return v.call == m_exampleCall ? tr("%1 (example)").arg(v.call) : QString::number(v.call);
        case StatusColumn:
            return statusText(v.status);
        case MaxAbsColumn:
            return v.outputs.isEmpty() ? QString() : diffText(v.maxAbs());
        case MaxRelColumn:
            return v.outputs.isEmpty() ? QString() : diffText(v.maxRel());
        case DetailColumn: {
            if (v.status == QLatin1String("rejected"))
                return tr("served by no program; this one %1").arg(UnservedAdvice::rejectionReason(v));
            if (!v.message.isEmpty())
                return v.note();
            QStringList notes;
            for (const OutputDiff &d : v.outputs)
                if (!d.note.isEmpty())
                    notes << QStringLiteral("%1: %2").arg(d.path, d.note);
            return notes.join(QStringLiteral("; "));
        }
        }
        return {};
    case Qt::ToolTipRole: {
        QStringList lines;
        if (!v.message.isEmpty())
            lines << v.message;
        for (const OutputDiff &d : v.outputs)
            lines << tr("%1: max abs %2, max rel %3%4")
                         .arg(d.path.isEmpty() ? tr("output") : d.path, diffText(d.maxAbs), diffText(d.maxRel),
                              d.note.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(d.note));
        return lines.join(QLatin1Char('\n'));
    }
    case Qt::ForegroundRole:
        // Lightened on a dark base until it reads (4.5:1), as the Dim colours are; no
        // palette without a GUI (the guiless tests read the colours as chosen).
        if (index.column() == StatusColumn) {
            return DimColours::readableOnBase(v.ok() ? QColor(0x1b, 0x7f, 0x2a) : QColor(Qt::red));
        }
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == MaxAbsColumn || index.column() == MaxRelColumn || index.column() == CallColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::UserRole:
        return v.ok();
    }
    return {};
}

// A call another program serves: its name where the status goes, torch's rejection
// by this program only in the tooltip, no colour (nothing failed).
QVariant VerificationModel::servedElsewhereData(const CallVerification &v, const QString &server, int column, int role) const
{
    if (role == Qt::DisplayRole) {
        if (column == CallColumn)
            return v.call == m_exampleCall ? tr("%1 (example)").arg(v.call) : QString::number(v.call);
        if (column == StatusColumn)
            return tr("served by %1").arg(server);
        if (column == DetailColumn)
            return tr("another phase: this program is not for it");
        return {};
    }
    if (role == Qt::ToolTipRole)
        return tr("Call %1 replays through %2. This program rejects it (it belongs to another phase): %3")
            .arg(v.call)
            .arg(server, v.note());
    if (role == Qt::TextAlignmentRole && column == CallColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::UserRole)
        return true; // served
    return {};
}

QVariant VerificationModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case CallColumn:
        return tr("Call");
    case StatusColumn:
        return tr("Exported program");
    case MaxAbsColumn:
        return tr("Max abs diff");
    case MaxRelColumn:
        return tr("Max rel diff");
    case DetailColumn:
        return tr("Detail");
    }
    return {};
}

} // namespace dimscope
