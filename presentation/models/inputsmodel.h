// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/loadedcapture.h"

#include <QAbstractItemModel>
#include <QColor>
#include <QHash>
#include <QSet>

namespace dimscope {

// The captured inputs as a tree: forward arguments -> containers -> custom classes ->
// leaves, merged over every call by key path.
class InputsModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, TypeColumn, ShapeColumn, ConstraintColumn, ColumnCount };
    enum Role {
        KeyPathRole = Qt::UserRole + 1, // QString: the node's key path
        NodeRole,                       // int: index into AlignedTree::nodes()
        IsLeafRole,                     // bool
        IsDynamicRole,                  // bool: some dim differs between calls
        ShapePartsRole,                 // QStringList: one text per dim ("4", "[5..9]")
        DynamicDimsRole,                // QVariantList of bool, per dim
        DimColoursRole,                 // QVariantList of QColor per dim (invalid = default)
        DimLabelsRole,                  // QStringList per dim (Dim name, "static", ...)
        PresentCallsRole,               // int: calls that have this node
        ViolationsRole,                 // QStringList: constraint violations of this leaf
    };

    explicit InputsModel(QObject *parent = nullptr);
    ~InputsModel() override;

    // Builds the tree here, on the calling thread: fine for tests and small
    // captures; large ones go through CaptureLoader and setLoaded().
    void setCapture(const Capture &capture);
    void setLoaded(const LoadedCapturePtr &loaded);
    void clear();
    LoadedCapturePtr loaded() const { return m_loaded; }

    // Per leaf key path, one entry per dim, for the leaves the constraint set lists
    // (InputsDecorator). Before the first call dynamic dims without a colour get the
    // "dynamic" accent; after it a leaf the set does not list is exported with every
    // dim static, so its dims are plain and its tooltip says so.
    void setDimColours(const QHash<QString, QVector<QColor>> &colours);
    void setDimLabels(const QHash<QString, QStringList> &labels);
    static QColor defaultDynamicColour();
    // Per leaf key path, the sentences of the constraint violations found in it: the
    // leaf gets a warning icon and the sentences in its tooltip.
    void setViolations(const QHash<QString, QStringList> &violations);
    // Per leaf key path, torch's shape decisions about the leaf's Dims in the last export
    // ("FILE:LINE: kind: expression"): shown in the constraint column's tooltip.
    void setExplanations(const QHash<QString, QStringList> &explanations);
    // Leaves tinted with `colour` (the Dim selected in the Dims panel).
    void setHighlighted(const QSet<QString> &paths, const QColor &colour);

    QModelIndex indexForPath(const QString &path, int column = 0) const;
    int nodeOf(const QModelIndex &index) const; // -1 for invalid

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QString valueText(const AlignedNode &node) const;
    QString perCallTooltip(const AlignedNode &node) const;
    bool isLeftOutOfConstraints(const AlignedNode &node, const ShapeSummary &shape) const;
    void emitDynamicLeavesChanged();
    void emitRowChanged(const QString &path);
    template<typename T>
    void replaceDecoration(QHash<QString, T> &current, const QHash<QString, T> &next);

    LoadedCapturePtr m_loaded;
    QHash<QString, QVector<QColor>> m_colours;
    bool m_coloursFromConstraints = false; // setDimColours was called for this capture
    QHash<QString, QStringList> m_labels;
    QHash<QString, QStringList> m_violations;
    QHash<QString, QStringList> m_explanations;
    QSet<QString> m_highlighted;
    QColor m_highlightColour;
};

} // namespace dimscope
