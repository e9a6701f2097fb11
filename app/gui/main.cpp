// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"
#include "firstpaint.h"
#include "quitafter.h"
#include "themeapplier.h"
#include "util/buildinfo.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>

#include <cstdio>

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
    // Preferences' theme (or DIMSCOPE_THEME), before the first widget exists.
    dimscope::ThemeApplier::applyEffective();

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("See and shape the dynamic_shapes of a PyTorch model."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("A capture (.safetensors) or a project (.dimscope) to open."), QStringLiteral("[FILE]"));
    // For tests/bench/bench_guistartup: quit at the first paint, or once FILE is shown.
    QCommandLineOption quitAfter(QStringLiteral("quit-after"), QStringLiteral("first-paint or shown"), QStringLiteral("moment"));
    quitAfter.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOption(quitAfter);
    QCommandLineOption exportOn(QStringLiteral("export"),
                                QStringLiteral("Export FILE on DEVICE (cpu or cuda) once it is open; a project's model runs "
                                               "without asking, since you named it."),
                                QStringLiteral("DEVICE"));
    parser.addOption(exportOn);
    parser.process(app);
    const QString device = parser.value(exportOn);
    if (parser.isSet(exportOn) && ((device != QLatin1String("cpu") && device != QLatin1String("cuda")) ||
                                   parser.positionalArguments().isEmpty())) {
        fprintf(stderr, "dimscope: --export takes cpu or cuda, and a FILE to export\n");
        return 2;
    }

    dimscope::MainWindow window;
    // The file opens once the window has painted: reading it (off the GUI thread) must
    // not compete with the first paint.
    // (--quit-after=first-paint: the process ends at that paint, before the file would open.)
    const QStringList files = parser.positionalArguments();
    const bool shown = parser.value(quitAfter) == QLatin1String("shown");
    if (!files.isEmpty() && (shown || !parser.isSet(quitAfter)))
        dimscope::FirstPaint::then(&window, [&window, file = files.first()] { window.openFile(file); });
    if (parser.isSet(exportOn))
        window.exportOnceShown(device);
    if (parser.isSet(quitAfter))
        dimscope::QuitAfter::install(&window, shown ? dimscope::QuitAfter::Moment::CaptureShown
                                                    : dimscope::QuitAfter::Moment::FirstPaint);
    window.show();
    return app.exec();
}
