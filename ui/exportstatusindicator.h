// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QProgressBar;

namespace dimscope {

class ElidedLabel;
class ExportProgress;

// The running export in the main window's status bar (issue 28, problem 9): its line
// ("phase 2 · round 2 · verifying call 5 (3 of 8)", elided; the worker's words in the
// tooltip) and a small bar, determinate when the step counts. Shown only while a job
// runs, so the Export dock need not be open to see where it is.
class ExportStatusIndicator : public QWidget
{
    Q_OBJECT
public:
    // `progress` outlives the indicator.
    explicit ExportStatusIndicator(const ExportProgress *progress, QWidget *parent = nullptr);

    ElidedLabel *label() const { return m_label; }
    QProgressBar *bar() const { return m_bar; }

private:
    void showProgress();

    const ExportProgress *m_progress;
    ElidedLabel *m_label;
    QProgressBar *m_bar;
};

} // namespace dimscope
