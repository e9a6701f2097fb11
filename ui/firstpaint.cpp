// SPDX-License-Identifier: GPL-3.0-or-later
#include "firstpaint.h"

#include <QCoreApplication>
#include <QEvent>
#include <QTimer>

namespace dimscope {

FirstPaint::FirstPaint(QObject *context, std::function<void()> then) : QObject(context), m_then(std::move(then))
{
    // Paint events reach the widgets, not the window: watch them all.
    qApp->installEventFilter(this);
}

void FirstPaint::then(QObject *context, std::function<void()> then)
{
    new FirstPaint(context, std::move(then));
}

bool FirstPaint::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::Paint && m_then) {
        qApp->removeEventFilter(this);
        // After this paint has been delivered and flushed; `parent()` is the context.
        QTimer::singleShot(0, parent(), std::exchange(m_then, {}));
        deleteLater();
    }
    return QObject::eventFilter(watched, event);
}

} // namespace dimscope
