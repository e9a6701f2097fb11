// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

#include <functional>

class QLabel;
class QPushButton;
class QTimer;

namespace dimscope {

// An inline message across the top of the window for errors and notices that must not
// block the user with a modal box. Hides itself after a while, or on its close button.
class MessageBanner : public QWidget
{
    Q_OBJECT
public:
    enum class Kind { Info, Warning, Error };

    explicit MessageBanner(QWidget *parent = nullptr);
    ~MessageBanner() override;

    void showMessage(Kind kind, const QString &text, int timeoutMs = 12000);
    // The same with a button that does something about it ("Locate…"): the banner
    // stays until it is used or dismissed, and hides when it is used.
    void showMessage(Kind kind, const QString &text, const QString &actionText, std::function<void()> action);
    QString text() const;
    QPushButton *actionButton() const { return m_action; }
    Kind kind() const { return m_kind; }

private:
    void applyColours();
    void changeEvent(QEvent *event) override;

    QLabel *m_label;
    QPushButton *m_action;
    std::function<void()> m_onAction;
    QTimer *m_hideTimer;
    Kind m_kind = Kind::Info;
};

} // namespace dimscope
