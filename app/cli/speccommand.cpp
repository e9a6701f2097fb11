// SPDX-License-Identifier: GPL-3.0-or-later
// dimscope-cli spec: the export a project runs, as a Python script in one of the
// dynamic_shapes dialects (docs/cli.md, "spec"; the GUI's Spec tab shows the same).
#include "clicommand.h"
#include "terminalsink.h"

#include "capture/capturereader.h"
#include "inference/captureanalysis.h"
#include "project/projectfile.h"
#include "spec/specscript.h"
#include "util/terminaltext.h"

#include <QFileInfo>
#include <QTextStream>

using namespace dimscope;

namespace {

struct SpecArgs {
    QString project;
    SpecScriptOptions options;
    bool exampleCallGiven = false;
};

QString dialectNames()
{
    QStringList names;
    for (SpecDialect d : SpecDialects::all())
        names << SpecDialects::name(d);
    return names.join(QStringLiteral(", "));
}

// Returns an error for bad usage.
QString parseArgs(const QStringList &args, SpecArgs *out)
{
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        const bool hasValue = i + 1 < args.size() && !args[i + 1].startsWith(QLatin1String("--"));
        if (a == QLatin1String("--dialect")) {
            const std::optional<SpecDialect> d = hasValue ? SpecDialects::fromName(args[++i]) : std::nullopt;
            if (!d)
                return QStringLiteral("--dialect needs one of: %1").arg(dialectNames());
            out->options.dialect = *d;
        } else if (a == QLatin1String("--torch-version")) {
            if (!hasValue)
                return QStringLiteral("--torch-version needs a version, e.g. 2.6");
            out->options.torchVersion = args[++i];
        } else if (a == QLatin1String("--example-call")) {
            bool ok = false;
            if (hasValue)
                out->options.exampleCall = args[++i].toInt(&ok);
            if (!ok || out->options.exampleCall < 0)
                return QStringLiteral("--example-call needs a call index");
            out->exampleCallGiven = true;
        } else if (a.startsWith(QLatin1String("--"))) {
            return QStringLiteral("unknown option %1").arg(TerminalText::quoted(a));
        } else if (out->project.isEmpty()) {
            out->project = a;
        } else {
            return QStringLiteral("one project only");
        }
    }
    return out->project.isEmpty() ? QStringLiteral("needs a PROJECT (.dimscope)") : QString();
}

int runSpec(const QStringList &argv)
{
    TerminalSink stdoutSink(stdout, TerminalSink::Mode::Python), stderrSink(stderr);
    QTextStream out(&stdoutSink);
    QTextStream err(&stderrSink);
    SpecArgs a;
    const QString usage = parseArgs(argv, &a);
    if (!usage.isEmpty()) {
        err << "dimscope-cli spec: " << usage << "\n";
        return 2;
    }
    QString error;
    const std::optional<ProjectFile> project = ProjectFile::read(a.project, &error);
    if (!project) {
        err << "dimscope-cli spec: " << TerminalText::escaped(error) << "\n";
        return 2;
    }
    const std::optional<Capture> capture = CaptureReader::open(project->capturePath, &error);
    if (!capture) {
        err << "dimscope-cli spec: " << TerminalText::escaped(error) << "\n";
        return 2;
    }
    SpecScriptOptions &o = a.options;
    if (!a.exampleCallGiven)
        o.exampleCall = project->exportOptions.exampleCall;
    if (o.exampleCall >= capture->calls.size()) {
        err << "dimscope-cli spec: example call " << o.exampleCall << ": the capture has " << capture->calls.size() << " call(s)\n";
        return 2;
    }
    o.capturePath = QFileInfo(project->capturePath).absoluteFilePath();
    o.modelReference = project->modelRef;
    o.strict = project->exportOptions.strict;
    o.device = project->exportOptions.device;
    o.programPath = QFileInfo(a.project).completeBaseName() + QStringLiteral(".pt2");
    // A project without constraints exports the inferred proposal, as the GUI shows it.
    const ConstraintSet set = project->constraints ? *project->constraints : CaptureAnalysis::infer(*capture).constraints;
    out << SpecScript::generate(*capture, set, o);
    return 0;
}

const CliRegistration registration(CliCommand{
    "spec",
    "spec PROJECT [--dialect named|hints|shapes-collection|additional-inputs] [--torch-version X.Y] [--example-call N]",
    "print the export a project runs as a Python script, dynamic_shapes in a dialect",
    &runSpec});

} // namespace
