// SPDX-License-Identifier: GPL-3.0-or-later
#include "models/inputsmodel.h"

#include "models/dtypetext.h"
#include "util/terminaltext.h"

#include <QFont>
#include <QIcon>
#include <QPainter>
#include <QPixmap>
#include <QJsonDocument>

namespace dimscope {

namespace {

QString scalarText(const Leaf &leaf)
{
    const QJsonValue &v = leaf.value;
    switch (leaf.kind) {
    case NodeKind::None: return QStringLiteral("None");
    case NodeKind::Bool: return v.toBool() ? QStringLiteral("True") : QStringLiteral("False");
    case NodeKind::String: return QLatin1Char('\'') + v.toString() + QLatin1Char('\'');
    case NodeKind::Int: return QString::number(v.toInteger());
    case NodeKind::Float: return QString::number(v.toDouble());
    default: return QString();
    }
}

// A red disc with a white bar: drawn, so it looks the same on every platform theme.
QIcon violationIcon()
{
    static const QIcon icon = [] {
        QPixmap pm(16, 16);
        pm.fill(Qt::transparent);
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0xd3, 0x2f, 0x2f));
        p.drawEllipse(QRectF(1, 1, 14, 14));
        p.setBrush(Qt::white);
        p.drawRect(QRectF(7, 3.5, 2, 6.5));
        p.drawRect(QRectF(7, 11, 2, 2));
        return QIcon(pm);
    }();
    return icon;
}

} // namespace

InputsModel::InputsModel(QObject *parent) : QAbstractItemModel(parent) {}

InputsModel::~InputsModel() = default;

void InputsModel::setCapture(const Capture &capture) { setLoaded(LoadedCapture::build(capture)); }

void InputsModel::setLoaded(const LoadedCapturePtr &loaded)
{
    beginResetModel();
    m_loaded = loaded;
    m_colours.clear();
    m_coloursFromConstraints = false;
    m_labels.clear();
    m_violations.clear();
    m_highlighted.clear();
    endResetModel();
}

void InputsModel::clear() { setLoaded({}); }

QColor InputsModel::defaultDynamicColour() { return QColor(0xd9, 0x5f, 0x02); }

namespace {
// The keys whose values differ between two maps: an edit usually touches a few leaves
// of tens of thousands, and only those rows need repainting.
template<typename T>
QStringList changedKeys(const QHash<QString, T> &before, const QHash<QString, T> &after)
{
    QStringList changed;
    for (auto it = after.cbegin(); it != after.cend(); ++it) {
        const auto old = before.constFind(it.key());
        if (old == before.cend() || !(*old == it.value()))
            changed.append(it.key());
    }
    for (auto it = before.cbegin(); it != before.cend(); ++it)
        if (!after.contains(it.key()))
            changed.append(it.key());
    return changed;
}
} // namespace

// Replaces one per-path decoration and repaints only the rows whose entry changed.
template<typename T>
void InputsModel::replaceDecoration(QHash<QString, T> &current, const QHash<QString, T> &next)
{
    const QStringList touched = changedKeys(current, next);
    current = next;
    for (const QString &path : touched)
        emitRowChanged(path);
}

void InputsModel::setDimColours(const QHash<QString, QVector<QColor>> &colours)
{
    if (!m_coloursFromConstraints) {
        // The leaves the set leaves out lose their "dynamic" accent now.
        m_coloursFromConstraints = true;
        emitDynamicLeavesChanged();
    }
    replaceDecoration(m_colours, colours);
}

void InputsModel::emitDynamicLeavesChanged()
{
    if (!m_loaded)
        return;
    const QVector<AlignedNode> &nodes = m_loaded->tree.nodes();
    for (int n = 1; n < nodes.size(); ++n) {
        if (nodes.at(n).isLeaf() && m_loaded->shapes.at(n).hasDynamicDim())
            emitRowChanged(nodes.at(n).path);
    }
}

// A tensor whose sizes vary between calls but that the constraint set does not list:
// the spec gives it no dynamic dim (SpecTree), so torch exports it static.
bool InputsModel::isLeftOutOfConstraints(const AlignedNode &node, const ShapeSummary &shape) const
{
    return m_coloursFromConstraints && node.isLeaf() && shape.hasDynamicDim() && !m_colours.contains(node.path);
}

void InputsModel::setDimLabels(const QHash<QString, QStringList> &labels)
{
    replaceDecoration(m_labels, labels);
}

void InputsModel::setViolations(const QHash<QString, QStringList> &violations)
{
    replaceDecoration(m_violations, violations);
}

void InputsModel::setExplanations(const QHash<QString, QStringList> &explanations)
{
    replaceDecoration(m_explanations, explanations);
}

void InputsModel::setHighlighted(const QSet<QString> &paths, const QColor &colour)
{
    // A new colour repaints every highlighted row, otherwise only the ones that change.
    QSet<QString> touched = colour == m_highlightColour ? (m_highlighted - paths) + (paths - m_highlighted) : m_highlighted + paths;
    m_highlighted = paths;
    m_highlightColour = colour;
    for (const QString &path : std::as_const(touched))
        emitRowChanged(path);
}

void InputsModel::emitRowChanged(const QString &path)
{
    const QModelIndex first = indexForPath(path, 0);
    if (first.isValid())
        emit dataChanged(first, first.siblingAtColumn(ColumnCount - 1));
}

QModelIndex InputsModel::indexForPath(const QString &path, int column) const
{
    if (!m_loaded)
        return {};
    const int node = m_loaded->tree.nodeForPath(path);
    if (node <= 0)
        return {};
    return createIndex(m_loaded->tree.node(node).row, column, quintptr(node));
}

int InputsModel::nodeOf(const QModelIndex &index) const
{
    return index.isValid() && index.model() == this ? int(index.internalId()) : -1;
}

QModelIndex InputsModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!m_loaded || column < 0 || column >= ColumnCount || row < 0)
        return {};
    const int parentNode = parent.isValid() ? int(parent.internalId()) : 0;
    const AlignedNode &p = m_loaded->tree.node(parentNode);
    if (row >= p.children.size())
        return {};
    return createIndex(row, column, quintptr(p.children.at(row)));
}

QModelIndex InputsModel::parent(const QModelIndex &child) const
{
    if (!m_loaded || !child.isValid())
        return {};
    const int parentNode = m_loaded->tree.node(int(child.internalId())).parent;
    if (parentNode <= 0)
        return {};
    return createIndex(m_loaded->tree.node(parentNode).row, 0, quintptr(parentNode));
}

int InputsModel::rowCount(const QModelIndex &parent) const
{
    if (!m_loaded || m_loaded->tree.nodes().isEmpty())
        return 0;
    if (parent.isValid() && parent.column() != 0)
        return 0;
    const int node = parent.isValid() ? int(parent.internalId()) : 0;
    return m_loaded->tree.node(node).children.size();
}

int InputsModel::columnCount(const QModelIndex &) const { return ColumnCount; }

QVariant InputsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return tr("Name");
    case TypeColumn: return tr("Type");
    case ShapeColumn: return tr("Shape over calls");
    case ConstraintColumn: return tr("Constraint");
    }
    return {};
}

// Scalar leaves: their distinct values over the calls.
QString InputsModel::valueText(const AlignedNode &node) const
{
    QStringList values;
    for (int c = 0; c < node.leafInCall.size(); ++c) {
        const Leaf *leaf = AlignedTree::leafIn(m_loaded->capture, node, c);
        if (leaf && !leaf->isTensor() && !values.contains(scalarText(*leaf)))
            values.append(scalarText(*leaf));
    }
    return values.join(QStringLiteral(" | "));
}

QString InputsModel::perCallTooltip(const AlignedNode &node) const
{
    QStringList lines;
    const int calls = m_loaded->tree.callCount();
    for (int c = 0; c < calls; ++c) {
        const Leaf *leaf = AlignedTree::leafIn(m_loaded->capture, node, c);
        QString text;
        if (!leaf)
            text = tr("absent");
        else if (leaf->isTensor())
            text = dtypeText(leaf->dtype) + QLatin1Char('[') + ShapeSummary::shapeText(leaf->shape) + QLatin1Char(']');
        else
            text = scalarText(*leaf);
        lines.append(tr("call %1: %2").arg(c).arg(text));
    }
    return lines.join(QLatin1Char('\n'));
}

QVariant InputsModel::data(const QModelIndex &index, int role) const
{
    if (!m_loaded || !index.isValid())
        return {};
    const int n = int(index.internalId());
    const AlignedNode &node = m_loaded->tree.node(n);
    const ShapeSummary &shape = m_loaded->shapes.at(n);
    const int present = m_loaded->presentCalls.value(n);

    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        // Names from the capture, as they would be printed (docs/security.md): a bidi
        // override or a zero-width character cannot make a key read as another.
        case NameColumn: return TerminalText::field(node.name);
        case TypeColumn: return TerminalText::field(m_loaded->typeTexts.value(n));
        case ShapeColumn:
            if (!node.isLeaf())
                return QString();
            return node.kind == NodeKind::Tensor ? shape.text : valueText(node);
        case ConstraintColumn: return m_labels.value(node.path).join(QStringLiteral(", "));
        }
        return {};
    case Qt::ToolTipRole:
        if (m_violations.contains(node.path) && (index.column() == NameColumn || index.column() == ConstraintColumn)) {
            const QStringList &v = m_violations[node.path];
            return tr("%1\n\nViolations:\n%2").arg(node.path, v.join(QLatin1Char('\n')));
        }
        if (index.column() == NameColumn) {
            QString tip = TerminalText::field(node.path);
            if (node.isLeaf() && present < m_loaded->tree.callCount())
                tip += QLatin1Char('\n') + tr("present in %1 of %2 calls").arg(present).arg(m_loaded->tree.callCount());
            return tip;
        }
        if (index.column() == ConstraintColumn && m_explanations.contains(node.path))
            return tr("%1\n\nIn the last export torch decided:\n%2")
                .arg(node.path, m_explanations.value(node.path).join(QLatin1Char('\n')));
        if (isLeftOutOfConstraints(node, shape))
            return QString(tr("Not in the constraint set: exported with every dim static.") + QStringLiteral("\n\n")
                           + perCallTooltip(node));
        if (node.isLeaf())
            return perCallTooltip(node);
        return node.typeName.isEmpty() ? QVariant() : QVariant(node.typeName);
    case Qt::FontRole:
        // Leaves that some calls lack (missing optional inputs) are set apart.
        if (node.isLeaf() && present < m_loaded->tree.callCount()) {
            QFont f;
            f.setItalic(true);
            return f;
        }
        return {};
    case Qt::DecorationRole:
        if (index.column() == NameColumn && m_violations.contains(node.path))
            return violationIcon();
        return {};
    case Qt::ForegroundRole:
        if (index.column() == ConstraintColumn && m_violations.contains(node.path))
            return QColor(0xc6, 0x28, 0x28);
        return {};
    case Qt::BackgroundRole:
        if (m_highlighted.contains(node.path) && m_highlightColour.isValid()) {
            QColor c = m_highlightColour;
            c.setAlpha(60);
            return c;
        }
        return {};
    case ViolationsRole: return m_violations.value(node.path);
    case KeyPathRole: return node.path;
    case NodeRole: return n;
    case IsLeafRole: return node.isLeaf();
    case IsDynamicRole: return shape.hasDynamicDim();
    case ShapePartsRole: return shape.parts;
    case DynamicDimsRole: {
        QVariantList dyn;
        for (bool d : shape.dynamic)
            dyn.append(d);
        return dyn;
    }
    case DimColoursRole: {
        QVariantList colours;
        const QVector<QColor> set = m_colours.value(node.path);
        const bool leftOut = isLeftOutOfConstraints(node, shape);
        for (int d = 0; d < shape.rank(); ++d) {
            QColor c = set.value(d);
            if (!c.isValid() && shape.dynamic.value(d) && !leftOut)
                c = defaultDynamicColour();
            colours.append(c);
        }
        return colours;
    }
    case DimLabelsRole: return m_labels.value(node.path);
    case PresentCallsRole: return present;
    }
    return {};
}

} // namespace dimscope
