// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/explanationsmodel.h"

#include "export/phasedexportoutcome.h"

#include <QFileInfo>
#include <QSet>

namespace dimscope {

namespace {

QString locationText(const SourceLocation &l)
{
    return l.isValid() ? QFileInfo(l.file).fileName() + QLatin1Char(':') + QString::number(l.line) : QString();
}

QString identity(const ShapeExplanation &e)
{
    return e.kind + QLatin1Char('\n') + e.expression + QLatin1Char('\n') + e.location.file + QLatin1Char(':')
        + QString::number(e.location.line);
}

} // namespace

ExplanationsModel::ExplanationsModel(QObject *parent) : QAbstractItemModel(parent) {}

void ExplanationsModel::setExplanations(const QVector<ShapeExplanation> &explanations)
{
    m_all = explanations;
    rebuild();
}

void ExplanationsModel::setDimFilter(const QString &name)
{
    if (name == m_dim)
        return;
    m_dim = name;
    rebuild();
}

void ExplanationsModel::setShowLibraryFrames(bool show)
{
    if (show == m_showLibrary)
        return;
    m_showLibrary = show;
    rebuild();
}

void ExplanationsModel::rebuild()
{
    beginResetModel();
    m_rows.clear();
    for (int i = 0; i < m_all.size(); ++i) {
        const ShapeExplanation &e = m_all.at(i);
        if (!m_dim.isEmpty() && !e.dims.contains(m_dim))
            continue;
        Row row{i, {}};
        for (int f = 0; f < e.stack.size(); ++f) {
            const SourceLocation &l = e.stack.at(f).location;
            // The innermost frame is the decision's own line, shown on its row.
            const bool isLocation = f == e.stack.size() - 1 && l.file == e.location.file && l.line == e.location.line;
            if (!isLocation && (m_showLibrary || !e.stack.at(f).library))
                row.frames << f;
        }
        m_rows << row;
    }
    endResetModel();
}

QVector<ShapeExplanation> ExplanationsModel::collect(const PhasedExportOutcome &outcome)
{
    QVector<ShapeExplanation> all;
    QSet<QString> seen;
    auto add = [&](const QVector<ShapeExplanation> &list) {
        for (const ShapeExplanation &e : list) {
            if (!seen.contains(identity(e))) {
                seen.insert(identity(e));
                all << e;
            }
        }
    };
    // The fix loop's earlier rounds: the decisions behind the fixes it applied.
    for (const ExportResult &round : outcome.rounds) {
        add(round.explanations);
        add(round.failure.explanations);
    }
    add(outcome.firstAttempt.explanations);
    add(outcome.firstAttempt.failure.explanations);
    for (const ExportedProgram &p : outcome.programs)
        add(p.result.explanations);
    return all;
}

const ShapeExplanation *ExplanationsModel::explanationAt(const QModelIndex &index) const
{
    if (!index.isValid())
        return nullptr;
    const int row = index.internalId() == 0 ? index.row() : int(index.internalId()) - 1;
    return row < m_rows.size() ? &m_all.at(m_rows.at(row).explanation) : nullptr;
}

QModelIndex ExplanationsModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    // internalId: 0 for a decision's row, 1 + its row for one of its frames.
    return createIndex(row, column, parent.isValid() ? quintptr(parent.row() + 1) : quintptr(0));
}

QModelIndex ExplanationsModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || child.internalId() == 0)
        return {};
    return createIndex(int(child.internalId()) - 1, 0, quintptr(0));
}

int ExplanationsModel::rowCount(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return int(m_rows.size());
    if (parent.internalId() != 0 || parent.column() != 0)
        return 0;
    return int(m_rows.at(parent.row()).frames.size());
}

int ExplanationsModel::columnCount(const QModelIndex &) const { return ColumnCount; }

QVariant ExplanationsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    if (index.internalId() == 0)
        return explanationData(m_all.at(m_rows.at(index.row()).explanation), index.column(), role);
    const Row &row = m_rows.at(int(index.internalId()) - 1);
    return frameData(m_all.at(row.explanation).stack.at(row.frames.at(index.row())), index.column(), role);
}

QVariant ExplanationsModel::explanationData(const ShapeExplanation &e, int column, int role) const
{
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case KindColumn:
            return e.kindText();
        case ExpressionColumn:
            return e.expression;
        case LocationColumn:
            return e.location.isValid() ? locationText(e.location) : tr("at the inputs");
        case CodeColumn:
            return e.location.code.trimmed();
        }
        return {};
    case Qt::ToolTipRole:
        return e.location.isValid()
                   ? e.toText()
                   : tr("%1\ntorch decided this before running the model (a size of 0 or 1 at the inputs)").arg(e.toText());
    case FileRole:
        return e.location.file;
    case LineRole:
        return e.location.line;
    }
    return {};
}

QVariant ExplanationsModel::frameData(const StackFrame &frame, int column, int role) const
{
    const SourceLocation &l = frame.location;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case KindColumn:
            return frame.library ? tr("library") : QString();
        case ExpressionColumn:
            return l.function;
        case LocationColumn:
            return locationText(l);
        case CodeColumn:
            return l.code.trimmed();
        }
        return {};
    case Qt::ToolTipRole:
        return l.toText();
    case FileRole:
        return l.file;
    case LineRole:
        return l.line;
    }
    return {};
}

QVariant ExplanationsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case KindColumn:
        return tr("Decision");
    case ExpressionColumn:
        return tr("Expression");
    case LocationColumn:
        return tr("Where");
    case CodeColumn:
        return tr("Code");
    }
    return {};
}

} // namespace dimscope
