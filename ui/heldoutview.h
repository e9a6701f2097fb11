// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/heldoutreplay.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTableView;

namespace dimscope {

class HeldOutModel;

// The held-out calls of the export shown (HeldOutModel): a summary line per group of
// calls, the table, and "Verify With Another Capture…", which asks for a second
// capture of the same model and exports again replaying its calls (verifyRequested).
class HeldOutView : public QWidget
{
    Q_OBJECT
public:
    explicit HeldOutView(QWidget *parent = nullptr);

    void setReplay(const HeldOutReplay &replay);

    HeldOutModel *model() const { return m_model; }
    QLabel *summaryLabel() const { return m_summary; }
    QTableView *tableView() const { return m_table; }
    QPushButton *verifyButton() const { return m_verify; }

signals:
    void verifyRequested();

private:
    HeldOutModel *m_model;
    QLabel *m_summary;
    QPushButton *m_verify;
    QTableView *m_table;
};

} // namespace dimscope
