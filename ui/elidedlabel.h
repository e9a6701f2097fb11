// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLabel>

namespace dimscope {

// A one-line label for a path or a name that may be long: it shows as much as its
// width allows, elided with "…", and the whole text in its tooltip when cut. Its
// minimum width is a few characters, so a long text never sets the width of the
// dock or window around it (a plain QLabel's minimum width is its whole text: a
// site-packages path in the Why dock widened the window past the screen). Plain text
// only: paths and names come from files.
class ElidedLabel : public QLabel
{
    Q_OBJECT
public:
    explicit ElidedLabel(Qt::TextElideMode mode, QWidget *parent = nullptr);

    // The whole text (QLabel::text() is what is shown, elided or not).
    void setFullText(const QString &text);
    QString fullText() const { return m_full; }
    // The tooltip shown when the text fits (the whole text is shown instead when cut).
    void setFitToolTip(const QString &tip);

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void elide();

    Qt::TextElideMode m_mode;
    QString m_full;
    QString m_fitToolTip;
};

} // namespace dimscope
