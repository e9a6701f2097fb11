// SPDX-License-Identifier: GPL-3.0-or-later
// dimscope-cli aoti: the programs of a .pt2 compiled with AOTInductor by the export
// worker, then the packages and the programs run side by side in a new interpreter on
// the capture's calls and range probes (issue 24 item 5, docs/cli.md). This file parses
// the arguments and prints; the request is core's AotiRequest, the report AotiReport.
#include "clicommand.h"
#include "interruptwatcher.h"
#include "terminalsink.h"

#include "export/aotireport.h"
#include "export/aotirequest.h"
#include "export/exportclient.h"
#include "project/modelreference.h"
#include "util/atomicfile.h"
#include "util/outputtarget.h"
#include "util/terminaltext.h"
#include "workerlines.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTextStream>
using namespace dimscope;

namespace {

const char kUsage[] = "aoti PROGRAM.pt2 --capture CAPTURE [--model FOLDER|REF] [--device cpu|cuda] [-o PACKAGE.pt2 | --package EXISTING.pt2] "
                      "[--verify-with CAPTURE] [--check-inputs] [--overwrite] [--json FILE]";

struct Options {
    AotiRequest request;
    QString json;
};

bool parseArgument(const QStringList &args, int *i, Options *o, QString *error)
{
    const QString &a = args.at(*i);
    AotiRequest &r = o->request;
    const QHash<QString, bool *> flags{{QStringLiteral("--check-inputs"), &r.checkInputs},
                                       {QStringLiteral("--overwrite"), &r.overwrite}};
    const QHash<QString, QString *> values{
        {QStringLiteral("--capture"), &r.capture}, {QStringLiteral("--device"), &r.device},
        {QStringLiteral("--model"), &r.model},
        {QStringLiteral("-o"), &r.output},         {QStringLiteral("--output"), &r.output},
        {QStringLiteral("--package"), &r.package}, {QStringLiteral("--verify-with"), &r.heldOut},
        {QStringLiteral("--json"), &o->json}};
    if (flags.contains(a)) {
        *flags.value(a) = true;
        return true;
    }
    if (!values.contains(a)) {
        if (a.startsWith(QLatin1Char('-')) || !r.program.isEmpty()) {
            *error = QStringLiteral("unknown argument '%1'").arg(TerminalText::escaped(a));
            return false;
        }
        r.program = a;
        return true;
    }
    if (*i + 1 >= args.size()) {
        *error = QStringLiteral("%1 needs a value").arg(a);
        return false;
    }
    *values.value(a) = args.at(++*i);
    return true;
}

QString checkInputs(Options &o)
{
    AotiRequest &r = o.request;
    if (r.program.isEmpty() || r.capture.isEmpty())
        return QStringLiteral("PROGRAM.pt2 and --capture are required");
    if (!r.model.isEmpty()) {
        QString error;
        const std::optional<QString> model = ModelReference::fromCommandLine(r.model, QDir::current(), &error);
        if (!model)
            return error;
        r.model = *model;
    }
    if (r.device != QLatin1String("cpu") && r.device != QLatin1String("cuda"))
        return QStringLiteral("--device must be cpu or cuda, not '%1'").arg(TerminalText::escaped(r.device));
    if (!r.package.isEmpty() && !r.output.isEmpty())
        return QStringLiteral("give -o (the package to compile) or --package (one to check), not both");
    for (const QString &input : {r.program, r.capture, r.package, r.heldOut}) {
        if (!input.isEmpty() && !QFileInfo(input).isFile())
            return QStringLiteral("%1 is not a file").arg(TerminalText::escaped(input));
    }
    QList<OutputTarget::Input> inputs{{QStringLiteral("PROGRAM"), r.program}, {QStringLiteral("--capture"), r.capture}};
    if (!r.heldOut.isEmpty())
        inputs.append({QStringLiteral("--verify-with"), r.heldOut});
    QString why;
    if (r.package.isEmpty()) {
        const QString output = r.output.isEmpty() ? AotiRequest::defaultOutput(r.program) : r.output;
        why = OutputTarget::check({QStringLiteral("-o"), output}, inputs);
        if (why.isEmpty() && !r.overwrite && QFileInfo::exists(output))
            why = QStringLiteral("-o %1 exists; give --overwrite to replace it").arg(output);
        inputs.append({QStringLiteral("-o"), output});
    } else {
        inputs.append({QStringLiteral("--package"), r.package});
    }
    if (why.isEmpty() && !o.json.isEmpty())
        why = OutputTarget::check({QStringLiteral("--json"), o.json}, inputs);
    return TerminalText::escaped(why);
}

bool isInputFailure(const QString &kind)
{
    static const QStringList kinds{QStringLiteral("bad_request"), QStringLiteral("capture"), QStringLiteral("bad_model_ref"),
                                   QStringLiteral("output_exists"), QStringLiteral("no_cuda")};
    return kinds.contains(kind);
}

int report(const QJsonObject &result, const QString &json, QTextStream &out, QTextStream &err)
{
    for (const QString &line : AotiReport::lines(result))
        out << TerminalText::escaped(line) << "\n";
    QString error;
    if (!json.isEmpty() && !AtomicFile::write(json, QJsonDocument(result).toJson(QJsonDocument::Indented), &error)) {
        err << "dimscope-cli aoti: --json " << TerminalText::escaped(json) << ": " << TerminalText::escaped(error) << "\n";
        return 1;
    }
    return AotiReport::clean(result) ? 0 : 3;
}

int run(const QStringList &args)
{
    TerminalSink stdoutSink(stdout), stderrSink(stderr);
    QTextStream out(&stdoutSink);
    QTextStream err(&stderrSink);
    Options o;
    QString error;
    for (int i = 0; i < args.size() && error.isEmpty(); ++i)
        parseArgument(args, &i, &o, &error);
    if (error.isEmpty())
        error = checkInputs(o);
    if (!error.isEmpty()) {
        err << "dimscope-cli aoti: " << error << "\nusage: dimscope-cli " << kUsage << "\n";
        return 2;
    }
    ExportClient client;
    InterruptWatcher interrupts;
    WorkerLines::follow(client, err, err, WorkerLines::Log::WarningsOnly);
    QObject::connect(&interrupts, &InterruptWatcher::interrupted, &client, [&client] { client.cancel(); });
    const int id = client.request(QStringLiteral("aoti"), o.request.params());
    client.waitForFinished(id);
    if (interrupts.caughtSignal() != 0) {
        err << "dimscope-cli aoti: interrupted by " << InterruptWatcher::signalName(interrupts.caughtSignal()) << "\n";
        return interrupts.exitCode();
    }
    const WorkerFailure failure = client.failureOf(id);
    if (failure.isValid()) {
        err << "dimscope-cli aoti: " << TerminalText::escaped(failure.kind) << ": "
            << TerminalText::escapedLines(failure.message) << "\n";
        return isInputFailure(failure.kind) ? 2 : 1;
    }
    client.shutdown();
    interrupts.restore();
    return report(client.resultOf(id), o.json, out, err);
}

const CliRegistration registration({"aoti", kUsage,
                                    "compile a .pt2 with AOTInductor and check the package against the program in a "
                                    "new interpreter",
                                    &run});

} // namespace
