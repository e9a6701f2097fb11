// SPDX-License-Identifier: GPL-3.0-or-later
// dimscope-cli export: torch.export through the Python worker, the captured calls
// replayed, the .pt2 read back and checked against the constraints (docs/cli.md). This
// file parses the arguments and ExportPrinter prints; the export itself (the worker,
// the fix loop and phases, the read-back, the fixes' causes, the --json report) is
// core's ExportRun, which the GUI's ExportService runs too.
#include "clicommand.h"
#include "exportprinter.h"
#include "interruptwatcher.h"
#include "terminalsink.h"

#include "capture/capturereader.h"
#include "export/exportclient.h"
#include "export/exportconstraints.h"
#include "export/exportrun.h"
#include "export/heldoutstructure.h"
#include "project/modelreference.h"
#include "spec/examplecall.h"
#include "inference/shapetable.h"
#include "util/outputtarget.h"
#include "util/terminaltext.h"

#include <QDir>
#include <QEventLoop>
#include <QTextStream>
using namespace dimscope;

namespace {

struct Options {
    QString model, capture, constraints, output, device = QStringLiteral("cpu");
    int call = -1;
    bool strict = false, fixLoop = false, explain = false, separatePrograms = false, noContinuation = false;
    bool probe = false, noProbe = false; // --probe / --no-probe: on by default with --fix-loop
    qint64 probeCap = 0;                  // --probe-cap N: 0, the worker's default cap
    QString json; // --json FILE
    QString verifyWith; // --verify-with CAPTURE: held-out calls
};

// One argument (and its value) into *o; false, with *error, when it is not one.
bool parseArgument(const QStringList &args, int *i, Options *o, QString *error)
{
    const QString &a = args.at(*i);
    const QHash<QString, bool *> flags{{QStringLiteral("--strict"), &o->strict},
                                       {QStringLiteral("--fix-loop"), &o->fixLoop},
                                       {QStringLiteral("--explain"), &o->explain},
                                       {QStringLiteral("--separate-programs"), &o->separatePrograms},
                                       {QStringLiteral("--no-continuation"), &o->noContinuation},
                                       {QStringLiteral("--probe"), &o->probe},
                                       {QStringLiteral("--no-probe"), &o->noProbe}};
    const QHash<QString, QString *> values{
        {QStringLiteral("--model"), &o->model},   {QStringLiteral("--capture"), &o->capture},
        {QStringLiteral("--constraints"), &o->constraints}, {QStringLiteral("-o"), &o->output},
        {QStringLiteral("--output"), &o->output}, {QStringLiteral("--device"), &o->device},
        {QStringLiteral("--json"), &o->json},     {QStringLiteral("--call"), nullptr},
        {QStringLiteral("--probe-cap"), nullptr},
        {QStringLiteral("--verify-with"), &o->verifyWith}};
    if (flags.contains(a)) {
        *flags.value(a) = true;
        return true;
    }
    if (!values.contains(a)) {
        *error = QStringLiteral("unknown argument '%1'").arg(a);
        return false;
    }
    if (*i + 1 >= args.size()) {
        *error = QStringLiteral("%1 needs a value").arg(a);
        return false;
    }
    const QString v = args.at(++*i);
    if (a == QLatin1String("--call")) {
        bool ok = false;
        o->call = v.toInt(&ok);
        if (!ok || o->call < 0)
            *error = QStringLiteral("--call needs a call index >= 0, not '%1'").arg(v);
        return error->isEmpty();
    }
    if (a == QLatin1String("--probe-cap")) {
        bool ok = false;
        o->probeCap = v.toLongLong(&ok);
        if (!ok || o->probeCap < 1)
            *error = QStringLiteral("--probe-cap needs a size >= 1, not '%1'").arg(v);
        return error->isEmpty();
    }
    *values.value(a) = v;
    if (a == QLatin1String("--device") && v != QLatin1String("cpu") && v != QLatin1String("cuda"))
        *error = QStringLiteral("--device must be cpu or cuda, not '%1'").arg(v);
    return error->isEmpty();
}

bool parse(const QStringList &args, Options *o, QString *error)
{
    for (int i = 0; i < args.size(); ++i) {
        if (!parseArgument(args, &i, o, error))
            return false;
    }
    if (o->probe && o->noProbe) {
        *error = QStringLiteral("--probe and --no-probe contradict each other");
        return false;
    }
    if (o->probeCap > 0 && !(o->probe || (o->fixLoop && !o->noProbe))) {
        *error = QStringLiteral("--probe-cap needs probing (--probe, or --fix-loop without --no-probe)");
        return false;
    }
    if (o->model.isEmpty() || o->capture.isEmpty() || o->output.isEmpty()) {
        *error = QStringLiteral("--model, --capture and -o are required");
        return false;
    }
    // "dimscope./../x.py:f" is no module of dimscope's package (docs/security.md).
    const std::optional<QString> model = ModelReference::fromCommandLine(o->model, QDir::current(), error);
    if (!model)
        return false;
    o->model = *model;
    return true;
}

// The files the export reads: no output may be one of them (a tab-completion slip in
// -o must not replace the capture or the model).
QList<OutputTarget::Input> exportInputs(const Options &o)
{
    QList<OutputTarget::Input> inputs{{QStringLiteral("--capture"), o.capture}};
    if (!o.constraints.isEmpty())
        inputs.append({QStringLiteral("--constraints"), o.constraints});
    if (!o.verifyWith.isEmpty())
        inputs.append({QStringLiteral("--verify-with"), o.verifyWith});
    // `path/to/file.py:callable`: the worker runs that file.
    const int colon = o.model.lastIndexOf(QLatin1Char(':'));
    if (colon > 0 && o.model.left(colon).endsWith(QLatin1String(".py")))
        inputs.append({QStringLiteral("the model file of --model"), o.model.left(colon)});
    return inputs;
}

// Before anything is read or started: -o and --json are neither inputs nor each other,
// where they exist they are regular files (never a device such as /dev/null), and
// their folders exist and are writable (else the worker found it after loading the
// model, once per phase).
QString refusedOutput(const Options &o)
{
    const QList<OutputTarget::Input> inputs = exportInputs(o);
    const OutputTarget::Input output{QStringLiteral("-o"), o.output};
    QString why = OutputTarget::check(output, inputs);
    if (why.isEmpty() && !o.json.isEmpty())
        why = OutputTarget::check({QStringLiteral("--json"), o.json}, inputs + QList<OutputTarget::Input>{output});
    // One line: a line feed or a tab in a path is shown escaped, not laid out.
    return TerminalText::escaped(why);
}

// With --constraints, what the file gives; else the constraint set inferred from the
// capture (its warnings printed here, its errors refuse the export).
std::optional<ExportConstraints> loadConstraints(const Options &o, const Capture &capture, QTextStream &err,
                                                 QString *error)
{
    if (!o.constraints.isEmpty())
        return ExportConstraints::read(o.constraints, error);
    QStringList warnings, errors; // each one line, escaped: the message keeps its own line breaks only
    std::optional<ExportConstraints> c = ExportConstraints::inferred(capture, &warnings, &errors);
    for (const QString &w : warnings)
        err << "warning: " << TerminalText::escaped(w) << "\n";
    for (QString &e : errors)
        e = TerminalText::escaped(e);
    if (!c)
        *error = QStringLiteral("the constraints inferred from %1 are unusable:\n  %2\n(give --constraints FILE)")
                     .arg(o.capture, errors.join(QStringLiteral("\n  ")));
    return c;
}

// --verify-with: a capture whose calls have the recorded calls' structure, checked
// before anything is exported (HeldOutStructure).
bool heldOutFits(const Options &o, const Capture &recorded, QString *error)
{
    const QString why = HeldOutStructure::fileMismatch(recorded, o.capture, o.verifyWith);
    if (!why.isEmpty())
        *error = QStringLiteral("--verify-with: %1").arg(why);
    return why.isEmpty();
}

// Reads the capture and the constraints; exit 2 (with the message in *error) when
// they cannot be used.
std::optional<std::pair<Capture, ExportConstraints>> readInputs(const Options &o, QTextStream &err, QString *error)
{
    std::optional<Capture> capture = CaptureReader::open(o.capture, error);
    if (!capture)
        return std::nullopt;
    if (capture->calls.isEmpty()) {
        *error = QStringLiteral("%1: the capture has no calls").arg(o.capture);
        return std::nullopt;
    }
    if (o.call >= capture->calls.size()) {
        *error = QStringLiteral("--call %1: %2 has %3 call(s)").arg(o.call).arg(o.capture).arg(capture->calls.size());
        return std::nullopt;
    }
    if (!o.verifyWith.isEmpty() && !heldOutFits(o, *capture, error))
        return std::nullopt;
    std::optional<ExportConstraints> c = loadConstraints(o, *capture, err, error);
    if (!c)
        return std::nullopt;
    if (o.fixLoop && !c->set) {
        *error = QStringLiteral("--fix-loop needs a constraint set (dimscope.constraints, a project file, or none to "
                                "infer one) to apply the fixes to; %1 is a dynamic_shapes spec")
                     .arg(o.constraints);
        return std::nullopt;
    }
    return std::make_pair(std::move(*capture), std::move(*c));
}

// Runs the export to its end, printing as it goes. From the start until the worker
// is shut down, a signal stops it rather than orphaning it.
int exportAndReport(const Options &o, const Capture &capture, const ExportConstraints &c, const ExportRequest &request,
                    QTextStream &out, QTextStream &err)
{
    ExportClient client;
    InterruptWatcher interrupts;
    ExportRun run(&client);
    ExportPrinter printer(out, err, o.fixLoop, o.explain);
    QEventLoop events;
    QObject::connect(&interrupts, &InterruptWatcher::interrupted, &run, [&run] { run.cancel(); });
    printer.follow(client);
    printer.follow(run, interrupts);
    QObject::connect(&run, &ExportRun::exportsFinished, &run, [&] {
        if (interrupts.caughtSignal() != 0) {
            events.quit(); // nothing is read back or reported
            return;
        }
        client.shutdown();
        interrupts.restore(); // the worker is gone: reading the programs back ends on a signal
    });
    QObject::connect(&run, &ExportRun::finished, &events, &QEventLoop::quit);
    ExportOptions options;
    options.fixLoop = o.fixLoop;
    options.separatePrograms = o.separatePrograms;
    PhasedExport::Options phased = PhasedExport::Options::from(options);
    phased.continuation = !o.noContinuation;
    if (c.set)
        run.start(capture, *c.set, request, phased);
    else
        run.startWithSpec(capture, c.spec, request);
    if (run.isRunning())
        events.exec();
    if (interrupts.caughtSignal() != 0)
        return printer.interrupted(interrupts);
    return printer.finish(run.report(), o.json);
}

int run(const QStringList &args)
{
    // Every line passes TerminalText on its way out (TerminalSink); messages and the
    // worker's lines are escaped where they are printed, so that they stay one line.
    TerminalSink stdoutSink(stdout), stderrSink(stderr);
    QTextStream out(&stdoutSink);
    QTextStream err(&stderrSink);
    Options o;
    QString error;
    if (!parse(args, &o, &error)) {
        err << "dimscope-cli export: " << error << "\nusage: dimscope-cli export --model REF --capture FILE "
            << "[--constraints FILE] [--device cpu|cuda] [--call N] [--strict] [--fix-loop] [--no-continuation] [--separate-programs] [--explain] "
               "[--verify-with CAPTURE] [--probe|--no-probe] [--probe-cap N] [--json FILE] -o OUT.pt2\n";
        return 2;
    }
    error = refusedOutput(o);
    const auto inputs = error.isEmpty() ? readInputs(o, err, &error) : std::nullopt;
    if (!inputs) {
        err << "dimscope-cli export: " << TerminalText::escapedLines(error) << "\n";
        return 2;
    }
    const auto &[capture, c] = *inputs;
    out << "constraints: " << c.source << "\n";
    // The example call is chosen here, from the constraints, so that the spec's
    // structure and the call the worker exports with are the same.
    ExportOptions options;
    options.device = o.device;
    options.strict = o.strict;
    options.exampleCall = o.call;
    if (c.set) {
        if (options.exampleCall < 0)
            options.exampleCall = chooseExampleCall(ShapeTable(capture), *c.set);
        out << "  dims: " << ExportPrinter::dimsText(*c.set) << "\n";
    }
    ExportRequest request = ExportRequest::make(o.model, o.capture, o.output, options);
    request.heldOut = o.verifyWith;
    // The declared ranges probed after verification (issue 24 item 3): asked for, or
    // with --fix-loop unless --no-probe.
    request.probe = o.probe || (o.fixLoop && !o.noProbe);
    request.probeCap = o.probeCap;
    return exportAndReport(o, capture, c, request, out, err);
}

const CliRegistration registration({"export",
                                    "export --model REF --capture FILE [--constraints FILE] [--device cpu|cuda] [--call N] "
                                    "[--strict] [--fix-loop] [--no-continuation] [--separate-programs] [--explain] [--verify-with CAPTURE] [--probe|--no-probe] [--probe-cap N] [--json FILE] -o OUT.pt2",
                                    "torch.export through the Python worker, then replay every captured call", &run});

} // namespace
