// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

class QSystemTrayIcon;
class QTimer;
class QWidget;

namespace dimscope {

class ExportResults;
class ExportService;

// Tells the user an export ended while they were in another window (issue 28, problem
// 9): a desktop notification through the system tray where the desktop has one that
// shows messages (QSystemTrayIcon::showMessage: freedesktop notifications on Linux,
// the notification centre elsewhere; the icon is shown for the message only), and
// always QApplication::alert on the window (the taskbar entry asks for attention,
// also where no tray exists). Nothing while one of dimscope's windows is active (the
// main window, a dialog, a floating dock), and nothing for a cancelled export: the user
// stopped it from the window.
class ExportNotifier : public QObject
{
    Q_OBJECT
public:
    enum class Method { None, Alert, TrayMessage };

    // `window`, `service` and `results` outlive the notifier.
    ExportNotifier(QWidget *window, ExportService *service, const ExportResults *results);
    ~ExportNotifier() override;

    // How the last notification was given (None: none was).
    Method lastMethod() const { return m_lastMethod; }

signals:
    void notified(const QString &title, const QString &text);

private:
    void exportEnded();
    void showTrayMessage(const QString &title, const QString &text, bool ok);

    QPointer<QWidget> m_window;
    const ExportResults *m_results;
    QSystemTrayIcon *m_tray = nullptr; // made for the first message, shown only with one
    QTimer *m_hideTray = nullptr;
    Method m_lastMethod = Method::None;
};

} // namespace dimscope
