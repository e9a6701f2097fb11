// SPDX-License-Identifier: GPL-3.0-or-later
#include "messagebanner.h"

#include "util/terminaltext.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <QToolButton>

namespace dimscope {

MessageBanner::MessageBanner(QWidget *parent)
    : QWidget(parent), m_label(new QLabel(this)), m_action(new QPushButton(this)), m_hideTimer(new QTimer(this))
{
    setObjectName(QStringLiteral("messageBanner"));
    setAutoFillBackground(true);
    m_label->setObjectName(QStringLiteral("messageBannerText"));
    m_label->setWordWrap(true);
    // Messages quote names from files: plain text, never HTML (Qt's AutoText would
    // render a key named "<img src=...>" as rich text).
    m_label->setTextFormat(Qt::PlainText);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_action->setObjectName(QStringLiteral("messageBannerAction"));
    m_action->hide();
    connect(m_action, &QPushButton::clicked, this, [this] {
        hide();
        // Moved out first: the action may show another message on this banner.
        const std::function<void()> action = std::move(m_onAction);
        m_onAction = nullptr;
        if (action)
            action();
    });
    auto *close = new QToolButton(this);
    close->setAutoRaise(true);
    close->setText(QStringLiteral("✕"));
    close->setToolTip(tr("Dismiss"));
    connect(close, &QToolButton::clicked, this, &QWidget::hide);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    layout->addWidget(m_label, 1);
    layout->addWidget(m_action, 0, Qt::AlignTop);
    layout->addWidget(close, 0, Qt::AlignTop);
    m_hideTimer->setSingleShot(true);
    connect(m_hideTimer, &QTimer::timeout, this, &QWidget::hide);
    hide();
}

MessageBanner::~MessageBanner() = default;

void MessageBanner::showMessage(Kind kind, const QString &text, const QString &actionText, std::function<void()> action)
{
    showMessage(kind, text, 0);
    m_onAction = std::move(action);
    m_action->setText(actionText);
    m_action->show();
}

void MessageBanner::showMessage(Kind kind, const QString &text, int timeoutMs)
{
    m_action->hide();
    m_onAction = nullptr;
    m_kind = kind;
    // Escaped as on a terminal (docs/security.md): a bidi override or a zero-width
    // character in a quoted name cannot make the message read as another.
    m_label->setText(TerminalText::escapedLines(text));
    applyColours();
    show();
    if (timeoutMs > 0)
        m_hideTimer->start(timeoutMs);
    else
        m_hideTimer->stop();
}

QString MessageBanner::text() const { return m_label->text(); }

void MessageBanner::applyColours()
{
    // Tinted towards the message's colour so that it reads in light and dark palettes.
    const QColor accent = m_kind == Kind::Error     ? QColor(0xd3, 0x2f, 0x2f)
                          : m_kind == Kind::Warning ? QColor(0xf0, 0xa0, 0x00)
                                                    : QColor(0x1e, 0x88, 0xe5);
    QPalette pal = palette();
    const QColor base = parentWidget() ? parentWidget()->palette().color(QPalette::Window) : pal.color(QPalette::Window);
    QColor bg;
    bg.setRgbF(base.redF() * 0.75 + accent.redF() * 0.25, base.greenF() * 0.75 + accent.greenF() * 0.25,
               base.blueF() * 0.75 + accent.blueF() * 0.25);
    pal.setColor(QPalette::Window, bg);
    setPalette(pal);
}

void MessageBanner::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::ParentChange)
        applyColours();
}

} // namespace dimscope
