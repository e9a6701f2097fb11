// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;
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
    QString text() const;
    Kind kind() const { return m_kind; }

private:
    void applyColours();
    void changeEvent(QEvent *event) override;

    QLabel *m_label;
    QTimer *m_hideTimer;
    Kind m_kind = Kind::Info;
};

} // namespace dimscope
