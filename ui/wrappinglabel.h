// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLabel>

namespace dimscope {

// A word-wrapped label that asks its layout for the height its text needs at its
// current width. A plain word-wrapped QLabel reports a one-line minimum to layouts
// that do not do height-for-width (dock widgets, dialogs sized by their minimum),
// so a long error or fit message was cut to its first line.
class WrappingLabel : public QLabel
{
    Q_OBJECT
public:
    explicit WrappingLabel(QWidget *parent = nullptr);

    // A word-wrapped QLabel's minimum width is its longest word: a path in an export's
    // headline set the width of the window. Made Ignored horizontally (keeping height
    // for width), `label` takes the width its layout gives and wraps there; a word
    // longer than that is cut at the edge.
    static void neverWidens(QLabel *label);

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    int neededHeight(int width) const;
};

} // namespace dimscope
