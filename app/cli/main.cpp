// SPDX-License-Identifier: GPL-3.0-or-later
#include "clicommand.h"
#include "util/buildinfo.h"

#include <QCoreApplication>
#include <QTextStream>

#include <algorithm>

QVector<CliCommand> &CliRegistry::commands()
{
    static QVector<CliCommand> all;
    return all;
}

static void printHelp(QTextStream &out)
{
    out << "usage: dimscope-cli COMMAND [ARGS]\n\ncommands:\n";
    auto commands = CliRegistry::commands();
    std::sort(commands.begin(), commands.end(),
              [](const CliCommand &a, const CliCommand &b) { return qstrcmp(a.name, b.name) < 0; });
    for (const CliCommand &c : commands) {
        const QString usage = QString::fromUtf8(c.usage);
        if (usage.size() <= 44)
            out << "  " << usage.leftJustified(44) << "  " << c.summary << "\n";
        else // long usages get their own line, the summary below them
            out << "  " << usage << "\n  " << QString().leftJustified(44) << "  " << c.summary << "\n";
    }
    out << "\n  --help, --version\n";
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("dimscope-cli"));
    QCoreApplication::setApplicationVersion(dimscope::BuildInfo::dimscopeVersion());
    QStringList args = app.arguments().mid(1);
    QTextStream out(stdout);
    QTextStream err(stderr);

    if (args.isEmpty() || args.first() == QLatin1String("--help") || args.first() == QLatin1String("-h")) {
        printHelp(args.isEmpty() ? err : out);
        return args.isEmpty() ? 2 : 0;
    }
    if (args.first() == QLatin1String("--version")) {
        out << "dimscope-cli " << dimscope::BuildInfo::dimscopeVersion() << " (Qt " << dimscope::BuildInfo::qtVersion()
            << ", LibTorch " << dimscope::BuildInfo::libtorchVersion() << ")\n";
        return 0;
    }
    const QString name = args.takeFirst();
    for (const CliCommand &c : CliRegistry::commands()) {
        if (name == QLatin1String(c.name))
            return c.run(args);
    }
    err << "dimscope-cli: unknown command '" << name << "' (see dimscope-cli --help)\n";
    return 2;
}
