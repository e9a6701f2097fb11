// SPDX-License-Identifier: GPL-3.0-or-later
#include "exportnotifier.h"

#include "document/exportresults.h"
#include "export/exportservice.h"

#include <QApplication>
#include <QStyle>
#include <QSystemTrayIcon>
#include <QTimer>
#include <QWidget>

namespace dimscope {

namespace {

constexpr int kMessageMs = 10000;

} // namespace

ExportNotifier::ExportNotifier(QWidget *window, ExportService *service, const ExportResults *results)
    : QObject(window), m_window(window), m_results(results)
{
    setObjectName(QStringLiteral("exportNotifier"));
    // After the document's results took the outcome (they follow each export with a
    // connection made later than this one): what the notification says is theirs.
    connect(service, &ExportService::finished, this, [this] { QTimer::singleShot(0, this, &ExportNotifier::exportEnded); });
}

ExportNotifier::~ExportNotifier() = default;

void ExportNotifier::exportEnded()
{
    // Any of dimscope's windows active (the main window, a dialog, a floating dock):
    // the user is here and sees the outcome.
    if (!m_window || QApplication::activeWindow() || !m_results->hasOutcome() || m_results->cancelled())
        return;
    const bool ok = m_results->succeeded();
    const QString title = ok ? tr("dimscope: export finished") : tr("dimscope: export failed");
    const QString text = m_results->summary();
    QApplication::alert(m_window);
    m_lastMethod = Method::Alert;
    if (QSystemTrayIcon::isSystemTrayAvailable() && QSystemTrayIcon::supportsMessages())
        showTrayMessage(title, text, ok);
    emit notified(title, text);
}

void ExportNotifier::showTrayMessage(const QString &title, const QString &text, bool ok)
{
    if (!m_tray) {
        QIcon icon = QApplication::windowIcon();
        if (icon.isNull())
            icon = m_window->style()->standardIcon(QStyle::SP_ComputerIcon);
        m_tray = new QSystemTrayIcon(icon, this);
        m_tray->setToolTip(QStringLiteral("dimscope"));
        connect(m_tray, &QSystemTrayIcon::messageClicked, this, [this] {
            m_tray->hide();
            if (m_window) {
                m_window->raise();
                m_window->activateWindow();
            }
        });
        // The icon is there for the message, not as a resident tray entry.
        m_hideTray = new QTimer(this);
        m_hideTray->setSingleShot(true);
        m_hideTray->setInterval(kMessageMs + 2000);
        connect(m_hideTray, &QTimer::timeout, m_tray, &QSystemTrayIcon::hide);
    }
    m_tray->show();
    m_tray->showMessage(title, text, ok ? QSystemTrayIcon::Information : QSystemTrayIcon::Warning, kMessageMs);
    m_hideTray->start();
    m_lastMethod = Method::TrayMessage;
}

} // namespace dimscope
