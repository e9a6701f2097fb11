// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/dimsmodel.h"

#include "models/dimcolours.h"
#include "document/exportresults.h"
#include "document/projectdocument.h"
#include "text/rangetext.h"
#include "constraints/constraintset.h"
#include "inference/autodims.h"
#include "inference/inferencenotes.h"

#include <QBrush>
#include <QGuiApplication>
#include <QColor>
#include <QFont>
#include <QPalette>

namespace dimscope {

DimsModel::DimsModel(ProjectDocument *document, QObject *parent) : QAbstractTableModel(parent), m_document(document)
{
    connect(document, &ProjectDocument::constraintsChanged, this, &DimsModel::rebuild);
    connect(document, &ProjectDocument::validationChanged, this, &DimsModel::refreshStatus);
    connect(document->exportResults(), &ExportResults::changed, this, [this] {
        if (rowCount() > 0)
            emit dataChanged(index(0, NameColumn), index(rowCount() - 1, NameColumn), {Qt::ToolTipRole});
    });
    rebuild();
}

DimsModel::~DimsModel() = default;

// What torch decided about Dim `name` in the document's last export, with the model
// line behind each decision (the Why panel lists them all).
QVariant DimsModel::explanationTip(const QString &name) const
{
    const QVector<ShapeExplanation> about = ShapeExplanation::about(m_document->exportResults()->explanations(), name);
    if (about.isEmpty())
        return {};
    QStringList lines{tr("In the last export torch decided:")};
    for (int i = 0; i < about.size() && i < 6; ++i)
        lines << about.at(i).toText();
    if (about.size() > 6)
        lines << tr("… and %n more in the Why panel", nullptr, int(about.size() - 6));
    return lines.join(QLatin1Char('\n'));
}

int DimsModel::rowOf(const QString &dim) const
{
    for (int i = 0; i < m_rows.size(); ++i)
        if (m_rows.at(i).decl.name == dim)
            return i;
    return -1;
}

QString DimsModel::dimName(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).decl.name : QString();
}

bool DimsModel::isAuto(int row) const
{
    return row >= 0 && row < m_rows.size() && m_rows.at(row).isAuto;
}

// The Dim.AUTO groups after the Dims, with inference's warnings about them: the CLI's
// `analyze` prints the same text (specializationWarnings).
void DimsModel::addAutoRows(QVector<Row> *rows) const
{
    const ConstraintSet &set = m_document->constraints();
    const ShapeTable &table = m_document->table();
    QHash<QString, int> rowOfGroup;
    for (const AutoDim &a : AutoDims::find(m_document->inference(), set)) {
        Row r;
        r.decl.name = a.name;
        r.isAuto = true;
        r.uses = int(a.rows.size());
        r.observedMin = a.minSize();
        r.observedMax = a.maxSize();
        r.zeroOneRisk = r.observedMin >= 0 && r.observedMin <= 1;
        r.variesIn = a.callsItVariesIn();
        for (int row : a.rows)
            r.members << tr("%1 dim %2").arg(table.leaf(table.leafOfRow(row)).path).arg(table.dimOfRow(row));
        if (!a.inferredName.isEmpty())
            rowOfGroup.insert(a.inferredName, int(rows->size()));
        rows->append(r);
    }
    for (const InferenceMessage &m : InferenceNotes::aboutAutoGroups(m_document->inference(), set)) {
        const int r = rowOfGroup.value(m.dim, -1);
        if (r >= 0 && m.severity != InferenceMessage::Severity::Error)
            (*rows)[r].notes.append(m.text);
    }
}

QString DimsModel::autoTip(const Row &row) const
{
    QStringList lines{tr("Dim.AUTO: torch decides whether this is dynamic and its range; it is not a Dim of the "
                         "constraints (assign a Dim in the inputs tree to name it)."),
                      tr("Dimensions: %1").arg(row.members.join(QStringLiteral(", ")))};
    lines << (row.variesIn.isEmpty() ? tr("The same size in every captured call.")
                                     : tr("Varies in call(s) %1 (sizes %2..%3).")
                                           .arg(describeCalls(row.variesIn))
                                           .arg(row.observedMin)
                                           .arg(row.observedMax));
    return lines.join(QLatin1Char('\n'));
}

void DimsModel::rebuild()
{
    const ConstraintSet &set = m_document->constraints();
    const ShapeTable &table = m_document->table();
    QVector<Row> rows;
    rows.reserve(set.dims().size());
    QHash<QString, int> rowOfName;
    for (const DimDecl &d : set.dims()) {
        Row r;
        r.decl = d;
        rowOfName.insert(d.name, rows.size());
        rows.append(r);
    }
    // Uses counted in one pass over the leaves (ConstraintSet::useCount per Dim would
    // cost Dims x leaves).
    for (const LeafConstraint &leaf : set.leaves()) {
        for (const DimAssignment &a : leaf.dims) {
            const int r = a.isNamed() ? rowOfName.value(a.dim, -1) : -1;
            if (r >= 0)
                ++rows[r].uses;
        }
    }
    // Observed values: every call's size of every leaf dimension using the Dim.
    for (const LeafConstraint &leaf : set.leaves()) {
        const int li = table.indexOf(leaf.path);
        if (li < 0)
            continue;
        const ShapeTable::LeafInfo &info = table.leaf(li);
        for (int d = 0; d < leaf.dims.size() && d < info.rank; ++d) {
            if (!leaf.dims.at(d).isNamed())
                continue;
            const int r = rowOfName.value(leaf.dims.at(d).dim, -1);
            if (r < 0)
                continue;
            Row &row = rows[r];
            const qint64 *values = table.row(info.firstDim + d);
            for (int c = 0; c < table.callCount(); ++c) {
                const qint64 v = values[c];
                if (v < 0)
                    continue;
                row.observedMin = row.observedMin < 0 ? v : qMin(row.observedMin, v);
                row.observedMax = qMax(row.observedMax, v);
                if (v <= 1)
                    row.zeroOneRisk = true;
            }
        }
    }
    // The notes quote the names inference gave; the set may have renamed them since.
    for (const InferenceMessage &m : InferenceNotes::inCurrentNames(m_document->inference(), set)) {
        const int r = rowOfName.value(m.dim, -1);
        if (r >= 0 && m.severity != InferenceMessage::Severity::Error)
            rows[r].notes.append(m.text);
    }
    addAutoRows(&rows);

    const bool sameNames = [&] {
        if (rows.size() != m_rows.size())
            return false;
        for (int i = 0; i < rows.size(); ++i)
            if (rows.at(i).decl.name != m_rows.at(i).decl.name || rows.at(i).isAuto != m_rows.at(i).isAuto)
                return false;
        return true;
    }();
    if (sameNames) {
        // Keeps selection and open editors when only ranges or uses changed.
        for (int i = 0; i < rows.size(); ++i)
            rows[i].violatedCalls = m_rows.at(i).violatedCalls;
        m_rows = rows;
        if (!m_rows.isEmpty())
            emit dataChanged(index(0, 0), index(m_rows.size() - 1, ColumnCount - 1));
    } else {
        beginResetModel();
        m_rows = rows;
        endResetModel();
    }
    refreshStatus();
}

void DimsModel::refreshStatus()
{
    for (Row &r : m_rows)
        r.violatedCalls.clear();
    const ConstraintSet &set = m_document->constraints();
    for (const ConstraintViolation &v : m_document->validation().violations) {
        if (v.dimName.isEmpty() || v.call < 0)
            continue;
        int r = rowOf(v.dimName);
        // A broken derived relation also concerns its root.
        if (r >= 0 && !m_rows.at(r).isAuto)
            m_rows[r].violatedCalls.insert(v.call);
        if (const DimDecl *d = set.dim(v.dimName); d && d->isDerived()) {
            r = rowOf(d->root);
            if (r >= 0 && v.rule == ConstraintViolation::Rule::DerivedRange)
                m_rows[r].violatedCalls.insert(v.call);
        }
    }
    if (!m_rows.isEmpty())
        emit dataChanged(index(0, StatusColumn), index(m_rows.size() - 1, StatusColumn));
}

QString DimsModel::statusText(const Row &row) const
{
    if (row.isAuto)
        return row.zeroOneRisk ? tr("auto: torch decides; 0/1 specialization risk") : tr("auto: torch decides");
    if (!row.violatedCalls.isEmpty())
        return row.violatedCalls.size() == 1 ? tr("violated in 1 call") : tr("violated in %1 calls").arg(row.violatedCalls.size());
    if (row.uses == 0)
        return tr("unused");
    if (row.zeroOneRisk)
        return tr("0/1 specialization risk");
    if (!row.notes.isEmpty())
        return tr("note: %1").arg(row.notes.first());
    return tr("ok");
}

int DimsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_rows.size();
}

int DimsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

static QString boundText(const std::optional<qint64> &b, const QString &none)
{
    return b ? QString::number(*b) : none;
}

QVariant DimsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const Row &row = m_rows.at(index.row());
    const DimDecl &d = row.decl;
    if (row.isAuto)
        return autoData(row, index.column(), role);
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        switch (index.column()) {
        case NameColumn: return d.name;
        // A derived Dim's range is its root's through the relation in the Derived column
        // (a dash: "(from ROOT)" twice took a fifth of the panel's width).
        case MinColumn:
            if (d.isDerived())
                return role == Qt::DisplayRole ? QStringLiteral("–") : QVariant();
            return boundText(d.min, role == Qt::DisplayRole ? tr("default") : QString());
        case MaxColumn:
            if (d.isDerived())
                return role == Qt::DisplayRole ? QStringLiteral("–") : QVariant();
            return role == Qt::DisplayRole ? RangeText::upper(d.max) : boundText(d.max, QString());
        case DerivedColumn: return d.isDerived() ? d.relationText() : QString();
        case ObservedColumn: return observedText(row);
        case UsesColumn: return row.uses;
        case StatusColumn: return statusText(row);
        }
        return {};
    case Qt::ToolTipRole:
        if (index.column() == StatusColumn) {
            QStringList lines;
            if (!row.violatedCalls.isEmpty()) {
                for (const ConstraintViolation &v : m_document->validation().violations)
                    if (v.dimName == d.name && lines.size() < 12)
                        lines.append(v.message);
            }
            if (row.zeroOneRisk)
                lines.append(tr("Some calls have size 0 or 1 here: torch.export specializes 0/1 sizes of the "
                                "example inputs, so keep them out of the example call."));
            lines += row.notes;
            return lines.isEmpty() ? QVariant() : QVariant(lines.join(QLatin1Char('\n')));
        }
        if (index.column() == NameColumn)
            return explanationTip(d.name);
        if (index.column() == MinColumn || index.column() == MaxColumn)
            return d.isDerived() ? tr("A derived Dim's range follows its root '%1'.").arg(d.root)
                                 : tr("Empty or %1 for torch's default; the range every captured call must fit.").arg(RangeText::infinity());
        return {};
    case Qt::DecorationRole:
        if (index.column() == NameColumn)
            return m_document->dimColours().colour(d.name);
        return {};
    case Qt::ForegroundRole:
        // Lightened on a dark base until it reads (4.5:1), as the Dim colours are.
        if (index.column() == StatusColumn && !row.violatedCalls.isEmpty())
            return QBrush(DimColours::readableOn(QColor(0xc6, 0x28, 0x28), QGuiApplication::palette().color(QPalette::Base)));
        if (index.column() == StatusColumn && row.zeroOneRisk)
            return QBrush(DimColours::readableOn(QColor(0xb2, 0x6b, 0x00), QGuiApplication::palette().color(QPalette::Base)));
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == MinColumn || index.column() == MaxColumn || index.column() == UsesColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case DimNameRole: return d.name;
    case ColourRole: return m_document->dimColours().colour(d.name);
    case ViolatedCallsRole: {
        QList<int> calls(row.violatedCalls.cbegin(), row.violatedCalls.cend());
        std::sort(calls.begin(), calls.end());
        return QVariant::fromValue(calls);
    }
    case IsDerivedRole: return d.isDerived();
    case IsAutoRole: return false;
    }
    return {};
}

// The sizes the Dim's dimensions took over the captured calls: "5", "1..8", or "–".
QString DimsModel::observedText(const Row &row)
{
    if (row.observedMin < 0)
        return QStringLiteral("–");
    return row.observedMin == row.observedMax ? QString::number(row.observedMin)
                                              : QStringLiteral("%1..%2").arg(row.observedMin).arg(row.observedMax);
}

// A Dim.AUTO row: read-only, in the auto style (DimColours::unnamedDynamicColour, italic name).
QVariant DimsModel::autoData(const Row &row, int column, int role) const
{
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn: return row.decl.name;
        case MinColumn:
        case MaxColumn: return tr("auto");
        case ObservedColumn: return observedText(row);
        case UsesColumn: return row.uses;
        case StatusColumn: return statusText(row);
        }
        return {};
    case Qt::ToolTipRole: {
        QStringList lines{autoTip(row)};
        if (column == StatusColumn || column == NameColumn)
            lines += row.notes;
        return lines.join(QLatin1Char('\n'));
    }
    case Qt::DecorationRole:
        return column == NameColumn ? QVariant(DimColours::unnamedDynamicColour()) : QVariant();
    case Qt::ForegroundRole:
        if (column == NameColumn)
            return QBrush(DimColours::readableOn(DimColours::unnamedDynamicColour(), QGuiApplication::palette().color(QPalette::Base)));
        if (column == StatusColumn && row.zeroOneRisk)
            return QBrush(DimColours::readableOn(QColor(0xb2, 0x6b, 0x00), QGuiApplication::palette().color(QPalette::Base)));
        return {};
    case Qt::FontRole:
        if (column == NameColumn) {
            QFont font;
            font.setItalic(true);
            return font;
        }
        return {};
    case Qt::TextAlignmentRole:
        if (column == MinColumn || column == MaxColumn || column == UsesColumn)
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case DimNameRole: return row.decl.name;
    case ColourRole: return DimColours::unnamedDynamicColour();
    case ViolatedCallsRole: return QVariant::fromValue(QList<int>());
    case IsDerivedRole: return false;
    case IsAutoRole: return true;
    }
    return {};
}

Qt::ItemFlags DimsModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (m_rows.at(index.row()).isAuto)
        return f;
    const bool derived = m_rows.at(index.row()).decl.isDerived();
    if (index.column() == NameColumn || (!derived && (index.column() == MinColumn || index.column() == MaxColumn)))
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant DimsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Dim");
    case MinColumn: return tr("Min");
    case MaxColumn: return tr("Max");
    case DerivedColumn: return tr("Derived");
    case ObservedColumn: return tr("Observed");
    case UsesColumn: return tr("Uses");
    case StatusColumn: return tr("Status");
    }
    return {};
}

std::optional<std::optional<qint64>> DimsModel::parseBound(const QString &text, QString *error)
{
    const QString t = text.trimmed();
    if (t.isEmpty() || t == QLatin1String("-") || t == QLatin1String("oo") || t.compare(QLatin1String("inf"), Qt::CaseInsensitive) == 0
        || t == RangeText::infinity() || t.compare(QLatin1String("default"), Qt::CaseInsensitive) == 0)
        return std::optional<qint64>();
    bool ok = false;
    const qint64 v = t.toLongLong(&ok);
    if (!ok) {
        *error = tr("'%1' is not an integer (leave it empty for torch's default)").arg(t);
        return std::nullopt;
    }
    return std::optional<qint64>(v);
}

std::function<QString(ConstraintSet &)> DimsModel::editFor(const QModelIndex &index, const QString &text, QString *error) const
{
    if (!index.isValid() || index.row() >= m_rows.size()) {
        *error = tr("no such Dim");
        return {};
    }
    if (m_rows.at(index.row()).isAuto) {
        *error = tr("a Dim.AUTO row is not a Dim: assign a Dim to its dimensions in the inputs tree");
        return {};
    }
    const DimDecl d = m_rows.at(index.row()).decl;
    switch (index.column()) {
    case NameColumn: {
        const QString name = text.trimmed();
        return [d, name](ConstraintSet &s) { return s.renameDim(d.name, name); };
    }
    case MinColumn:
    case MaxColumn: {
        const auto bound = parseBound(text, error);
        if (!bound)
            return {};
        const bool isMin = index.column() == MinColumn;
        return [d, isMin, b = *bound](ConstraintSet &s) {
            return s.setRange(d.name, isMin ? b : d.min, isMin ? d.max : b);
        };
    }
    default: *error = tr("this column is not editable"); return {};
    }
}

QString DimsModel::checkEdit(const QModelIndex &index, const QString &text) const
{
    QString error;
    const auto op = editFor(index, text, &error);
    if (!op)
        return error;
    if (index.column() == NameColumn && text.trimmed() == m_rows.at(index.row()).decl.name)
        return {};
    return m_document->tryEdit(op);
}

bool DimsModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole || !(flags(index) & Qt::ItemIsEditable))
        return false;
    QString error;
    const QString from = m_rows.at(index.row()).decl.name;
    const auto op = editFor(index, value.toString(), &error);
    if (op) {
        const QString name = m_rows.at(index.row()).decl.name;
        const QString what = index.column() == NameColumn ? tr("Rename Dim %1").arg(name)
                             : index.column() == MinColumn ? tr("Set min of %1").arg(name)
                                                           : tr("Set max of %1").arg(name);
        error = m_document->edit(what, op);
    }
    m_lastError = error;
    if (!error.isEmpty()) {
        emit editRejected(error);
        return false;
    }
    if (index.column() == NameColumn && from != value.toString().trimmed())
        emit dimRenamed(from, value.toString().trimmed());
    return true;
}

QString DimsModel::addDim(QString *name)
{
    const ConstraintSet &set = m_document->constraints();
    QString candidate;
    for (int i = 1;; ++i) {
        candidate = QStringLiteral("dim%1").arg(i);
        if (!set.dim(candidate))
            break;
    }
    const QString error = m_document->edit(tr("Add Dim %1").arg(candidate),
                                           [candidate](ConstraintSet &s) { return s.addRootDim(candidate); });
    if (error.isEmpty() && name)
        *name = candidate;
    return error;
}

QString DimsModel::renameDim(const QString &from, const QString &to)
{
    const QString error = m_document->edit(tr("Rename Dim %1 to %2").arg(from, to), [&](ConstraintSet &s) { return s.renameDim(from, to); });
    if (error.isEmpty() && from != to)
        emit dimRenamed(from, to);
    return error;
}

QString DimsModel::deleteDim(const QString &name)
{
    return m_document->edit(tr("Delete Dim %1").arg(name), [&](ConstraintSet &s) { return s.removeDim(name); });
}

QString DimsModel::mergeDims(const QString &keep, const QString &drop)
{
    return m_document->edit(tr("Merge Dim %1 into %2").arg(drop, keep), [&](ConstraintSet &s) { return s.mergeDims(keep, drop); });
}

} // namespace dimscope
