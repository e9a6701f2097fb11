// SPDX-License-Identifier: GPL-3.0-or-later
// The baseline of bench_guistartup: a Qt Widgets program that shows a main window with
// a menu bar and quits after its first paint, the least a Qt desktop tool does.
#include <QApplication>
#include <QMainWindow>
#include <QMenuBar>
#include <QTimer>

namespace {

class QuitOnFirstPaint : public QObject
{
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::Paint) {
            qApp->removeEventFilter(this);
            QTimer::singleShot(0, qApp, &QCoreApplication::quit);
        }
        return QObject::eventFilter(watched, event);
    }
};

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QMainWindow window;
    window.menuBar()->addMenu(QStringLiteral("&File"));
    window.resize(1200, 800);
    app.installEventFilter(new QuitOnFirstPaint(&app));
    window.show();
    return app.exec();
}
