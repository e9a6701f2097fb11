// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/exportresult.h"

#include <QAbstractItemModel>

namespace dimscope {

struct PhasedExportOutcome;

// torch's shape decisions of an export (ShapeExplanation, docs/worker-protocol.md): a
// row per decision (kind, expression in Dim names, the model line), its stack frames
// from the model's forward to that line as children. Library frames (torch,
// transformers, ...) are left out unless asked for; a Dim filter keeps the decisions
// about one Dim.
class ExplanationsModel : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { KindColumn, ExpressionColumn, LocationColumn, CodeColumn, ColumnCount };
    enum Role {
        FileRole = Qt::UserRole + 1, // the row's source file (absolute path as torch gave it)
        LineRole,                    // its line, 1-based; 0 when it has none
    };

    explicit ExplanationsModel(QObject *parent = nullptr);

    void setExplanations(const QVector<ShapeExplanation> &explanations);
    const QVector<ShapeExplanation> &explanations() const { return m_all; }
    // Keeps the decisions that involve Dim `name`; empty: all.
    void setDimFilter(const QString &name);
    QString dimFilter() const { return m_dim; }
    void setShowLibraryFrames(bool show);
    bool showsLibraryFrames() const { return m_showLibrary; }
    // The decision of a top-level row, or of a frame's parent row.
    const ShapeExplanation *explanationAt(const QModelIndex &index) const;

    // Every decision of an export's attempts (the first, whose constraints were the
    // user's, then each program's), every fix-loop round included, each once.
    static QVector<ShapeExplanation> collect(const PhasedExportOutcome &outcome);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        int explanation;     // index in m_all
        QVector<int> frames; // indices in its stack, shown ones only
    };
    void rebuild();
    QVariant explanationData(const ShapeExplanation &e, int column, int role) const;
    QVariant frameData(const StackFrame &frame, int column, int role) const;

    QVector<ShapeExplanation> m_all;
    QVector<Row> m_rows;
    QString m_dim;
    bool m_showLibrary = false;
};

} // namespace dimscope
