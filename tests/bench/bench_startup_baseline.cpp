// SPDX-License-Identifier: GPL-3.0-or-later
// The start-up baseline of bench_startup: a program linking only Qt Core that parses
// its arguments and prints its help, the least a Qt command-line tool does.
#include <QCommandLineParser>
#include <QCoreApplication>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("bench_startup_baseline"));
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Prints this help: the start-up baseline of bench_startup."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("command"), QStringLiteral("ignored"));
    parser.process(app); // --help prints and exits 0
    return 0;
}
