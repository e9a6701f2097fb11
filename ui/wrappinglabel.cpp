// SPDX-License-Identifier: GPL-3.0-or-later
#include "wrappinglabel.h"

#include <QResizeEvent>

namespace dimscope {

WrappingLabel::WrappingLabel(QWidget *parent) : QLabel(parent)
{
    setWordWrap(true);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Minimum);
}

void WrappingLabel::neverWidens(QLabel *label)
{
    QSizePolicy policy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    label->setSizePolicy(policy);
}

int WrappingLabel::neededHeight(int width) const
{
    // Hidden, the label has no real width yet (a placeholder 100 px would ask for a
    // needlessly tall first layout); once shown it is resized and asks again.
    return text().isEmpty() || !isVisible() ? 0 : heightForWidth(qMax(width, 1));
}

QSize WrappingLabel::minimumSizeHint() const
{
    const QSize base = QLabel::minimumSizeHint();
    return {base.width(), qMax(base.height(), neededHeight(width()))};
}

QSize WrappingLabel::sizeHint() const
{
    const QSize base = QLabel::sizeHint();
    return {base.width(), qMax(base.height(), neededHeight(width()))};
}

void WrappingLabel::resizeEvent(QResizeEvent *event)
{
    QLabel::resizeEvent(event);
    // A new width wraps the text into another number of lines: ask the layout again.
    if (event->oldSize().width() != event->size().width() && neededHeight(event->size().width()) != height())
        updateGeometry();
}

} // namespace dimscope
