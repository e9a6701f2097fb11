// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pt2/pt2dimmapper.h"
#include "pt2/pt2program.h"

#include <QWidget>

#include <optional>

class QLabel;
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
    void clear();

    Pt2InputsModel *inputsModel() const { return m_model; }
    QTableView *inputsView() const { return m_inputs; }
    QTreeWidget *rangesView() const { return m_ranges; }
    QLabel *summaryLabel() const { return m_summary; }

private:
    QLabel *m_summary;
    Pt2InputsModel *m_model;
    QTableView *m_inputs;
    QTreeWidget *m_ranges;
    QLabel *m_problems;
};

} // namespace dimscope
