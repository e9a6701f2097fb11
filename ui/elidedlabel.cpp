// SPDX-License-Identifier: GPL-3.0-or-later
#include "elidedlabel.h"

#include <QEvent>
#include <QResizeEvent>

namespace dimscope {

ElidedLabel::ElidedLabel(Qt::TextElideMode mode, QWidget *parent) : QLabel(parent), m_mode(mode)
{
    setTextFormat(Qt::PlainText);
}

void ElidedLabel::setFullText(const QString &text)
{
    m_full = text;
    elide();
    updateGeometry();
}

void ElidedLabel::setFitToolTip(const QString &tip)
{
    m_fitToolTip = tip;
    elide();
}

QSize ElidedLabel::minimumSizeHint() const
{
    // Room for a few characters and the ellipsis: enough to tell there is text.
    const int few = fontMetrics().horizontalAdvance(QStringLiteral("MMMM…"));
    const QMargins m = contentsMargins();
    return {std::min(few, sizeHint().width()) + m.left() + m.right(), QLabel::minimumSizeHint().height()};
}

QSize ElidedLabel::sizeHint() const
{
    const QMargins m = contentsMargins();
    return {fontMetrics().horizontalAdvance(m_full) + 2 * margin() + m.left() + m.right(), QLabel::sizeHint().height()};
}

void ElidedLabel::resizeEvent(QResizeEvent *event)
{
    QLabel::resizeEvent(event);
    elide();
}

void ElidedLabel::showEvent(QShowEvent *event)
{
    QLabel::showEvent(event);
    elide();
}

void ElidedLabel::changeEvent(QEvent *event)
{
    QLabel::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        elide();
}

void ElidedLabel::elide()
{
    // Hidden, it has no width of its own yet: the whole text until shown.
    const QString shown = !isVisible() ? m_full
                                       : fontMetrics().elidedText(m_full, m_mode, std::max(0, contentsRect().width() - 2 * margin()));
    if (shown != text())
        QLabel::setText(shown);
    setToolTip(shown == m_full ? m_fitToolTip : m_full);
}

} // namespace dimscope
