// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pt2/pt2dimmapper.h"
#include "pt2/pt2program.h"

#include <QVector>
#include <QWidget>

#include <optional>

class QLabel;
class QTabBar;
class QTableView;
class QTreeWidget;

namespace dimscope {

class Pt2InputsModel;

// What an exported program (.pt2) takes: its user inputs with their symbolic sizes
// (in the user's Dim names when the constraints are known) and torch's range
// constraints. Used for an export's result and for a .pt2 opened on its own.
class Pt2ProgramView : public QWidget
{
    Q_OBJECT
public:
    explicit Pt2ProgramView(QWidget *parent = nullptr);

    void setProgram(const Pt2Program &program, const std::optional<Pt2DimMapping> &mapping = std::nullopt);
    // Every program of a .pt2 opened on its own, a tab each ("model", "phase2", ...),
    // each in the Dim names its file records (Pt2DimMapper::recorded).
    void setPrograms(const QVector<Pt2Program> &programs);
    void clear();

    Pt2InputsModel *inputsModel() const { return m_model; }
    QTableView *inputsView() const { return m_inputs; }
    QTreeWidget *rangesView() const { return m_ranges; }
    QLabel *summaryLabel() const { return m_summary; }
    QTabBar *programTabs() const { return m_tabs; }

private:
    void showProgram(const Pt2Program &program, const std::optional<Pt2DimMapping> &mapping);

    QVector<Pt2Program> m_programs; // setPrograms(): the archive's, one per tab
    QTabBar *m_tabs;
    QLabel *m_summary;
    Pt2InputsModel *m_model;
    QTableView *m_inputs;
    QTreeWidget *m_ranges;
    QLabel *m_problems;
};

} // namespace dimscope
