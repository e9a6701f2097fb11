// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/programsmodel.h"

#include "export/exportphases.h"

#include <QDir>

namespace dimscope {

ProgramsModel::ProgramsModel(QObject *parent) : QAbstractTableModel(parent) {}

void ProgramsModel::setPrograms(const QVector<ExportedProgram> &programs)
{
    beginResetModel();
    m_programs = programs;
    endResetModel();
}

int ProgramsModel::rowCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : int(m_programs.size()); }

int ProgramsModel::columnCount(const QModelIndex &parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ProgramsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ExportedProgram &p = m_programs.at(index.row());
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case FileColumn: // "llama.pt2, program phase2" in an archive of several programs
            return PhasedExportOutcome::programText(m_programs, index.row(), true);
        case CallsColumn: // a synthesized program (the continuation) serves none of them
            return p.synthesized.isEmpty() ? ExportPhases::callsText(p.calls) : tr("none recorded");
        case PhaseColumn: { // the CLI's warnings (issue 24 item 2, issue 27), not silence
            QString text = p.narrowed.isEmpty() ? p.description : tr("%1 (narrower than asked)").arg(p.description);
            return p.unvaried.isEmpty() ? text : tr("%1 (sizes as recorded)").arg(text);
        }
        case FixesColumn:
            return p.appliedFixes.isEmpty() ? tr("none") : p.appliedFixes.join(QStringLiteral("; "));
        }
    } else if (role == Qt::ToolTipRole) {
        switch (index.column()) {
        case FileColumn:
            return PhasedExportOutcome::programText(m_programs, index.row()).replace(
                p.result.output, QDir::toNativeSeparators(p.result.output));
        case CallsColumn:
            if (!p.synthesized.isEmpty())
                return tr("Serves none of the captured calls: exported and %1").arg(p.synthesized);
            return tr("%n captured call(s) replay through this program, outputs compared", nullptr, int(p.calls.size()));
        case PhaseColumn: {
            QString tip = p.description;
            if (!p.narrowed.isEmpty())
                tip += tr("\n\nNarrower than the constraints its export started from; calls outside are served "
                          "only where another program takes them:\n%1")
                           .arg(p.narrowed.join(QLatin1Char('\n')));
            if (!p.unvaried.isEmpty())
                tip += tr("\n\nTakes these sizes only as recorded, since no recorded call varied them:\n%1")
                           .arg(p.unvaried.join(QLatin1Char('\n')));
            return tip;
        }
        case FixesColumn:
            return p.appliedFixes.isEmpty()
                       ? tr("Exported with the constraints as they were")
                       : tr("torch's suggested fixes applied to a copy of the constraints:\n%1")
                             .arg(p.appliedFixes.join(QLatin1Char('\n')));
        default:
            return data(index, Qt::DisplayRole);
        }
    }
    return {};
}

QVariant ProgramsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case FileColumn:
        return tr("Program");
    case CallsColumn:
        return tr("Calls");
    case PhaseColumn:
        return tr("Phase");
    case FixesColumn:
        return tr("Fixes applied");
    }
    return {};
}

} // namespace dimscope
