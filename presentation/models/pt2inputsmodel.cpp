// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/pt2inputsmodel.h"

#include "util/terminaltext.h"

#include <QColor>

namespace dimscope {

Pt2InputsModel::Pt2InputsModel(QObject *parent) : QAbstractTableModel(parent) {}

void Pt2InputsModel::setProgram(const Pt2Program &program, const std::optional<Pt2DimMapping> &mapping)
{
    beginResetModel();
    m_rows.clear();
    const Pt2DimMapping *map = mapping ? &*mapping : nullptr;
    for (int i = 0; i < program.inputs.size(); ++i) {
        const Pt2UserInput &in = program.inputs.at(i);
        Row row;
        row.label = in.path.isEmpty() ? in.name : in.path;
        switch (in.kind) {
        case Pt2UserInput::Kind::Tensor: {
            row.dtype = in.tensor.dtype;
            row.device = in.tensor.device;
            QStringList named, symbolic, notes;
            const Pt2DimMapping::Input *mi = map && i < map->inputs.size() ? &map->inputs.at(i) : nullptr;
            for (int d = 0; d < in.tensor.sizes.size(); ++d) {
                const SymSize &s = in.tensor.sizes.at(d);
                named << (map ? map->namedSize(s) : s.toString()); // the CLI's names too
                symbolic << s.toString();
                if (mi && d < mi->dims.size()) {
                    const Pt2DimMapping::Dim &md = mi->dims.at(d);
                    if (md.status == Pt2DimMapping::Dim::Status::Specialized) {
                        row.flagged << d;
                        notes << tr("dim %1: %2 wanted dynamic, exported static (%3)")
                                     .arg(d)
                                     .arg(md.intended.isEmpty() ? tr("Dim") : md.intended)
                                     .arg(s.toString());
                    } else if (md.status == Pt2DimMapping::Dim::Status::UnexpectedDynamic) {
                        notes << tr("dim %1: dynamic (%2) although the constraints say %3")
                                     .arg(d)
                                     .arg(s.toString(), md.intended.isEmpty() ? tr("nothing") : md.intended);
                    }
                }
            }
            row.named = named.join(QStringLiteral(" × "));
            row.symbolic = symbolic.join(QStringLiteral(" × "));
            row.note = notes.join(QStringLiteral("; "));
            break;
        }
        case Pt2UserInput::Kind::SymInt:
            row.dtype = tr("SymInt");
            if (in.symInt) {
                row.named = map ? map->namedSize(*in.symInt) : in.symInt->toString();
                row.symbolic = in.symInt->toString();
            }
            break;
        case Pt2UserInput::Kind::Constant:
            row.dtype = tr("constant");
            row.named = row.symbolic = in.constant.isNull() ? QStringLiteral("None") : in.constant.toVariant().toString();
            break;
        case Pt2UserInput::Kind::Other:
            row.dtype = in.argType;
            break;
        }
        m_rows << row;
    }
    endResetModel();
}

void Pt2InputsModel::clear()
{
    beginResetModel();
    m_rows.clear();
    endResetModel();
}

int Pt2InputsModel::flaggedCount() const
{
    int n = 0;
    for (const Row &r : m_rows)
        n += r.flagged.size();
    return n;
}

int Pt2InputsModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : m_rows.size(); }

int Pt2InputsModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant Pt2InputsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &r = m_rows.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case InputColumn:
            return TerminalText::field(r.label); // a name from the .pt2 (docs/security.md)
        case DtypeColumn:
            return r.dtype;
        case DimsColumn:
            return r.named;
        case SymbolsColumn:
            return r.symbolic;
        case DeviceColumn:
            return r.device;
        case NoteColumn:
            return r.note;
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == DimsColumn || index.column() == NoteColumn)
            return r.note.isEmpty() ? r.symbolic : r.note;
        return {};
    case Qt::ForegroundRole:
        if (!r.flagged.isEmpty() && (index.column() == DimsColumn || index.column() == NoteColumn))
            return QColor(Qt::red);
        return {};
    case FlaggedDimsRole:
        return QVariant::fromValue(r.flagged);
    case PathRole:
        return r.label;
    }
    return {};
}

QVariant Pt2InputsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case InputColumn:
        return tr("Input");
    case DtypeColumn:
        return tr("dtype");
    case DimsColumn:
        return tr("Sizes (Dims)");
    case SymbolsColumn:
        return tr("Sizes (torch)");
    case DeviceColumn:
        return tr("Device");
    case NoteColumn:
        return tr("Note");
    }
    return {};
}

} // namespace dimscope
