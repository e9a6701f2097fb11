// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constraints/dimdecl.h"

#include <QAbstractTableModel>
#include <QSet>
#include <QVector>

#include <functional>
#include <optional>

namespace dimscope {

class ConstraintSet;
class ProjectDocument;

// The Dims of the document's ConstraintSet, one row each, then one row per group of
// dimensions left to torch as Dim.AUTO (AutoDims: read-only, with inference's warning
// about them). Name, min and max edit in place through ProjectDocument::edit (one undo
// step each); an edit the ConstraintSet refuses is not applied and its reason is kept
// in lastError() / editRejected().
class DimsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, MinColumn, MaxColumn, DerivedColumn, ObservedColumn, UsesColumn, StatusColumn, ColumnCount };
    enum Role {
        DimNameRole = Qt::UserRole + 1, // QString
        ColourRole,                     // QColor
        ViolatedCallsRole,              // QList<int>: calls violating a rule about this Dim
        IsDerivedRole,                  // bool
        IsAutoRole,                     // bool: a Dim.AUTO row, not a Dim of the set
    };

    explicit DimsModel(ProjectDocument *document, QObject *parent = nullptr);
    ~DimsModel() override;

    ProjectDocument *document() const { return m_document; }
    int rowOf(const QString &dim) const;
    QString dimName(int row) const;
    bool isAuto(int row) const;

    // What setData would say about `text` in `index`, without applying it (empty = fine).
    QString checkEdit(const QModelIndex &index, const QString &text) const;
    QString lastError() const { return m_lastError; }

    // Structural edits, each one undo step; they return the error (empty = done).
    QString addDim(QString *name = nullptr);
    QString renameDim(const QString &from, const QString &to);
    QString deleteDim(const QString &name);
    QString mergeDims(const QString &keep, const QString &drop);

    // "", "-", "oo", "inf", "∞" -> unbounded; an integer otherwise.
    static std::optional<std::optional<qint64>> parseBound(const QString &text, QString *error);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

signals:
    void editRejected(const QString &reason);
    // A rename was applied (the model was reset with the new name): views keep the Dim selected.
    void dimRenamed(const QString &from, const QString &to);

private:
    QVariant explanationTip(const QString &name) const;
    struct Row {
        DimDecl decl; // for a Dim.AUTO row only its name
        bool isAuto = false;
        QVector<int> variesIn; // Dim.AUTO rows: the calls whose size differs from the first's
        QStringList members;   // Dim.AUTO rows: "input_ids dim 1"
        qint64 observedMin = -1;
        qint64 observedMax = -1;
        int uses = 0;
        QSet<int> violatedCalls;
        bool zeroOneRisk = false;
        QStringList notes;
    };
    void rebuild();
    void addAutoRows(QVector<Row> *rows) const;
    QString autoTip(const Row &row) const;
    QVariant autoData(const Row &row, int column, int role) const;
    void refreshStatus();
    QString statusText(const Row &row) const;
    static QString observedText(const Row &row);
    // The edit `text` in `index` makes, as an operation on a ConstraintSet.
    std::function<QString(ConstraintSet &)> editFor(const QModelIndex &index, const QString &text, QString *error) const;

    ProjectDocument *m_document;
    QVector<Row> m_rows;
    QString m_lastError;
};

} // namespace dimscope
