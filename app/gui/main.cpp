#include "mainwindow.h"

#include <QApplication>

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("dimscope"));
    QApplication::setOrganizationName(QStringLiteral("dimscope"));
    dimscope::MainWindow window;
    window.show();
    const QStringList args = app.arguments();
    if (args.size() > 1)
        window.openFile(args.at(1));
    return app.exec();
}
