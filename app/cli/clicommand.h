// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QStringList>
#include <QVector>

// A dimscope-cli subcommand. Each command lives in its own file and registers
// itself with a static CliRegistration, so main() needs no list of them.
struct CliCommand {
    const char *name;
    const char *usage;   // one line: "inspect FILE [--json]"
    const char *summary; // one line for `dimscope-cli --help`
    int (*run)(const QStringList &args); // args after the command name; returns the exit code
};

class CliRegistry
{
public:
    static QVector<CliCommand> &commands();
};

struct CliRegistration {
    explicit CliRegistration(const CliCommand &command) { CliRegistry::commands().append(command); }
};
