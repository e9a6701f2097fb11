// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/heldoutmodel.h"

#include "models/dimcolours.h"

#include <QColor>
#include <QStringList>

namespace dimscope {

HeldOutModel::HeldOutModel(QObject *parent) : QAbstractTableModel(parent) {}

void HeldOutModel::setReplay(const HeldOutReplay &replay)
{
    beginResetModel();
    m_replay = replay;
    endResetModel();
}

QString HeldOutModel::statusText(const QString &status)
{
    if (status == QLatin1String("served"))
        return tr("served");
    if (status == QLatin1String("rejected"))
        return tr("rejected by every program");
    if (status == QLatin1String("wrong"))
        return tr("WRONG outputs");
    if (status == QLatin1String("eager_failed"))
        return tr("eager model failed");
    if (status == QLatin1String("rebuilt_differs"))
        return tr("not verifiable: rebuilt call differs from recording");
    return status;
}

int HeldOutModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : m_replay.calls.size(); }

int HeldOutModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

// Rejected: each program's guard, in the order the programs were tried; otherwise
// the worker's own words, if any.
QString HeldOutModel::detailText(const HeldOutCall &call) const
{
    if (call.status == QLatin1String("rejected")) {
        QStringList guards;
        for (const HeldOutCall::Rejection &r : call.rejections)
            guards << QStringLiteral("%1: %2").arg(r.program, r.guard);
        return guards.join(QStringLiteral("; "));
    }
    return call.message.section(QLatin1Char('\n'), 0, 0);
}

QString HeldOutModel::toolTipText(const HeldOutCall &call) const
{
    QStringList lines;
    if (!call.message.isEmpty())
        lines << call.message;
    for (const HeldOutCall::Rejection &r : call.rejections)
        lines << tr("Program %1 rejected it: %2").arg(r.program, r.message.isEmpty() ? r.guard : r.message);
    return lines.join(QLatin1Char('\n'));
}

QVariant HeldOutModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const HeldOutCall &call = m_replay.calls.at(index.row());
    const bool served = call.status == QLatin1String("served");
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case CallColumn:
            return call.call;
        case StatusColumn:
            return statusText(call.status);
        case ProgramColumn:
            return call.program;
        case MaxAbsColumn:
            return call.maxAbs ? QString::number(*call.maxAbs, 'g', 3) : QString();
        case DetailColumn:
            return detailText(call);
        }
        return {};
    case Qt::ToolTipRole:
        return toolTipText(call);
    case Qt::ForegroundRole: {
        // A served call needs no colour; anything else is the warning red, lightened on
        // a dark base until it reads (no palette without a GUI).
        if (index.column() != StatusColumn || served)
            return {};
        return DimColours::readableOnBase(QColor(Qt::red));
    }
    case Qt::TextAlignmentRole:
        if (index.column() == CallColumn || index.column() == MaxAbsColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case Qt::UserRole:
        return served;
    }
    return {};
}

QVariant HeldOutModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case CallColumn:
        return tr("Call");
    case StatusColumn:
        return tr("Held-out call");
    case ProgramColumn:
        return tr("Program");
    case MaxAbsColumn:
        return tr("Max |Δ|");
    case DetailColumn:
        return tr("Guard or note");
    }
    return {};
}

} // namespace dimscope
