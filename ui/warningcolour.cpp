// SPDX-License-Identifier: GPL-3.0-or-later
#include "warningcolour.h"

#include "models/dimcolours.h"

#include <QEvent>
#include <QLabel>
#include <QPalette>

namespace dimscope {

WarningColour::WarningColour(QLabel *label) : QObject(label), m_label(label)
{
    label->installEventFilter(this);
}

void WarningColour::apply(QLabel *label, bool warning)
{
    auto *existing = label->findChild<WarningColour *>(QString(), Qt::FindDirectChildrenOnly);
    if (!warning) {
        if (existing) {
            delete existing;
            label->setPalette(QPalette()); // every role inherited again
        }
        return;
    }
    if (!existing)
        existing = new WarningColour(label);
    existing->recolour();
}

QColor WarningColour::on(const QColor &background)
{
    return DimColours::readableOn(QColor(0xc0, 0x39, 0x2b), background);
}

void WarningColour::recolour()
{
    m_label->setPalette(QPalette()); // the background as the theme has it now
    // Only the text colour is the label's own; every other role follows the theme.
    m_background = m_label->palette().color(QPalette::Window);
    QPalette p;
    p.setColor(QPalette::WindowText, on(m_background));
    m_label->setPalette(p);
}

bool WarningColour::eventFilter(QObject *watched, QEvent *event)
{
    // A theme switch does not tell a label whose text colour is set (no palette event
    // reaches it), but its background changes: checked when it paints, recoloured after.
    if (watched == m_label && event->type() == QEvent::Paint && m_label->palette().color(QPalette::Window) != m_background)
        QMetaObject::invokeMethod(this, &WarningColour::recolour, Qt::QueuedConnection);
    return QObject::eventFilter(watched, event);
}

} // namespace dimscope
