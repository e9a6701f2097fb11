// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"
#include "util/buildinfo.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("dimscope"));
    QApplication::setOrganizationName(QStringLiteral("dimscope"));
    QApplication::setApplicationVersion(dimscope::BuildInfo::dimscopeVersion());
    QApplication::setDesktopFileName(QStringLiteral("io.github.dimscope.dimscope"));
    QIcon icon;
    for (int size : {16, 32, 64, 128, 256})
        icon.addFile(QStringLiteral(":/dimscope/icons/dimscope-%1.png").arg(size));
    QApplication::setWindowIcon(icon);

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("See and shape the dynamic_shapes of a PyTorch model."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("A capture (.safetensors) or a project (.dimscope) to open."), QStringLiteral("[FILE]"));
    parser.process(app);

    dimscope::MainWindow window;
    window.show();
    const QStringList files = parser.positionalArguments();
    if (!files.isEmpty())
        window.openFile(files.first());
    return app.exec();
}
