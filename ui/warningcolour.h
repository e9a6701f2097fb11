// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QObject>

class QLabel;

namespace dimscope {

// The red of a label that warns (a problem of a program, an invalid model reference, a
// fix that could not be applied), taken from the palette: #c0392b made readable on the
// label's background (DimColours::readableOn, 4.5:1), set as the label's WindowText and
// set again when its background changes (Preferences' theme). A hard-coded
// style sheet colour read at 2.6:1 on the dark theme's window (issue 28 problem 10).
class WarningColour : public QObject
{
    Q_OBJECT
public:
    // Colours `label` red while `warning`, else gives it back its palette's text colour.
    static void apply(QLabel *label, bool warning);
    // The warning red on `background`.
    static QColor on(const QColor &background);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    explicit WarningColour(QLabel *label);
    void recolour();

    QLabel *m_label;
    QColor m_background; // the background the red was made readable on
};

} // namespace dimscope
