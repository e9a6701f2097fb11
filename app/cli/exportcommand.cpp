// SPDX-License-Identifier: GPL-3.0-or-later
// dimscope-cli export: runs torch.export through the Python worker and prints the
// progress, the verification table and, on failure, the violations and fixes. With a
// constraint set (given or inferred), --fix-loop applies torch's suggested fixes and
// exports again; after a successful export the .pt2 is read back and checked against
// the constraints. The worker's explanations (the model line behind each Dim torch
// specialized, narrowed, tied or guarded) are printed on failure, with each applied
// fix, and with --explain after a success; --json FILE writes them as data.
#include "clicommand.h"
#include "exportreadback.h"
#include "interruptwatcher.h"
#include "terminalsink.h"

#include "capture/capturereader.h"
#include "export/dimintent.h"
#include "export/exportphases.h"
#include "export/exportclient.h"
#include "export/phasedexport.h"
#include "shapes/constraintsetjson.h"
#include "shapes/examplecall.h"
#include "project/modelreference.h"
#include "pt2/torchrangetext.h"
#include "shapes/jsonspecemitter.h"
#include "shapes/jsontext.h"
#include "shapes/captureanalysis.h"
#include "util/atomicfile.h"
#include "util/outputtarget.h"
#include "util/regularfile.h"
#include "util/terminaltext.h"

#include <QEventLoop>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTextStream>
using namespace dimscope;

namespace {

struct Options {
    QString model, capture, constraints, output, device = QStringLiteral("cpu");
    int call = -1;
    bool strict = false, fixLoop = false, explain = false;
    QString json; // --json FILE
};

bool parse(const QStringList &args, Options *o, QString *error)
{
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args.at(i);
        auto value = [&](QString *into) {
            if (i + 1 >= args.size()) {
                *error = QStringLiteral("%1 needs a value").arg(a);
                return false;
            }
            *into = args.at(++i);
            return true;
        };
        if (a == QLatin1String("--model")) {
            if (!value(&o->model)) return false;
        } else if (a == QLatin1String("--capture")) {
            if (!value(&o->capture)) return false;
        } else if (a == QLatin1String("--constraints")) {
            if (!value(&o->constraints)) return false;
        } else if (a == QLatin1String("-o") || a == QLatin1String("--output")) {
            if (!value(&o->output)) return false;
        } else if (a == QLatin1String("--device")) {
            if (!value(&o->device)) return false;
            if (o->device != QLatin1String("cpu") && o->device != QLatin1String("cuda")) {
                *error = QStringLiteral("--device must be cpu or cuda, not '%1'").arg(o->device);
                return false;
            }
        } else if (a == QLatin1String("--call")) {
            QString v;
            if (!value(&v)) return false;
            bool ok = false;
            o->call = v.toInt(&ok);
            if (!ok || o->call < 0) {
                *error = QStringLiteral("--call needs a call index >= 0, not '%1'").arg(v);
                return false;
            }
        } else if (a == QLatin1String("--strict")) {
            o->strict = true;
        } else if (a == QLatin1String("--fix-loop")) {
            o->fixLoop = true;
        } else if (a == QLatin1String("--explain")) {
            o->explain = true;
        } else if (a == QLatin1String("--json")) {
            if (!value(&o->json)) return false;
        } else {
            *error = QStringLiteral("unknown argument '%1'").arg(a);
            return false;
        }
    }
    if (o->model.isEmpty() || o->capture.isEmpty() || o->output.isEmpty()) {
        *error = QStringLiteral("--model, --capture and -o are required");
        return false;
    }
    // "dimscope./../x.py:f" is no module of dimscope's package: refused before
    // anything starts, as the worker and the GUI refuse it (docs/security.md).
    const QString disguised = ModelReference::disguise(o->model);
    if (!disguised.isEmpty()) {
        *error = QStringLiteral("--model: %1").arg(disguised);
        return false;
    }
    // The worker runs in a private folder (docs/worker-protocol.md, "Isolation"): a
    // file or folder typed relative is the one in the folder the CLI was started in.
    o->model = ModelReference::absoluteIn(o->model, QDir::current());
    return true;
}

// The files the export reads: no output may be one of them (a tab-completion slip in
// -o must not replace the capture or the model).
QList<OutputTarget::Input> exportInputs(const Options &o)
{
    QList<OutputTarget::Input> inputs{{QStringLiteral("--capture"), o.capture}};
    if (!o.constraints.isEmpty())
        inputs.append({QStringLiteral("--constraints"), o.constraints});
    // `path/to/file.py:callable`: the worker runs that file.
    const int colon = o.model.lastIndexOf(QLatin1Char(':'));
    if (colon > 0 && o.model.left(colon).endsWith(QLatin1String(".py")))
        inputs.append({QStringLiteral("the model file of --model"), o.model.left(colon)});
    return inputs;
}

// Before anything is read or started: -o and --json are neither inputs nor each other,
// and where they exist they are regular files (never a device such as /dev/null).
QString refusedOutput(const Options &o)
{
    const QList<OutputTarget::Input> inputs = exportInputs(o);
    const OutputTarget::Input output{QStringLiteral("-o"), o.output};
    QString why = OutputTarget::check(output, inputs);
    if (why.isEmpty() && !o.json.isEmpty())
        why = OutputTarget::check({QStringLiteral("--json"), o.json}, inputs + QList<OutputTarget::Input>{output});
    return why;
}

// What the export runs with: a constraint set (given, taken from a project file, or
// inferred from the capture), from which each round's spec is emitted, or a
// dynamic_shapes spec used as is.
struct Constraints {
    std::optional<ConstraintSet> set;
    QJsonObject spec;   // when no set
    QString source;     // for the messages
};

bool readJsonObject(const QString &path, QJsonObject *object, QByteArray *text, QString *error)
{
    // A constraints or project file is small; a FIFO or a device must not hang the CLI.
    QString why;
    const std::optional<QByteArray> bytes = RegularFile::readAll(path, qint64(64) << 20, &why);
    if (!bytes) {
        *error = QStringLiteral("%1: %2").arg(path, why);
        return false;
    }
    QJsonParseError perr;
    const QJsonDocument doc = QJsonDocument::fromJson(*bytes, &perr);
    if (!doc.isObject()) {
        *error = perr.error != QJsonParseError::NoError
                     ? QStringLiteral("%1: not JSON (%2 at offset %3)").arg(path, perr.errorString()).arg(perr.offset)
                     : QStringLiteral("%1: not a JSON object").arg(path);
        return false;
    }
    *object = doc.object();
    *text = *bytes;
    return true;
}

bool loadConstraints(const Options &o, const Capture &capture, QTextStream &err, Constraints *c, QString *error)
{
    if (o.constraints.isEmpty()) {
        const InferenceResult r = CaptureAnalysis::infer(capture);
        QStringList errors; // each one line, escaped: the message keeps its own line breaks only
        for (const QString &e : r.texts(InferenceMessage::Severity::Error))
            errors << TerminalText::escaped(e);
        for (const QString &w : r.texts(InferenceMessage::Severity::Warning))
            err << "warning: " << TerminalText::escaped(w) << "\n";
        if (r.hasErrors()) {
            *error = QStringLiteral("the constraints inferred from %1 are unusable:\n  %2\n(give --constraints FILE)")
                         .arg(o.capture, errors.join(QStringLiteral("\n  ")));
            return false;
        }
        c->set = r.constraints;
        c->source = QStringLiteral("inferred from the capture");
        return true;
    }
    QJsonObject doc;
    QByteArray text; // read from the text: the constraint set keeps the file's order of leaves
    if (!readJsonObject(o.constraints, &doc, &text, error))
        return false;
    const QString format = doc.value(QLatin1String("format")).toString();
    if (format == QLatin1String("dimscope.dynamic_shapes")) {
        c->spec = doc;
        c->source = o.constraints + QStringLiteral(" (dynamic_shapes spec, used as is)");
        return true;
    }
    QString where = o.constraints;
    if (format == QLatin1String("dimscope.project")) {
        // A project file: its constraint set.
        if (!doc.value(QLatin1String("constraints")).isObject()) {
            *error = QStringLiteral("%1: the project has no \"constraints\" object").arg(o.constraints);
            return false;
        }
        text = jsontext::memberText(text, QStringLiteral("constraints"));
        where += QStringLiteral(" (constraints)");
    } else if (format != QLatin1String("dimscope.constraints")) {
        *error = QStringLiteral("%1: format %2 is neither dimscope.constraints, dimscope.dynamic_shapes nor "
                                "dimscope.project")
                     .arg(o.constraints, TerminalText::quoted(format));
        return false;
    }
    QString readError;
    c->set = ConstraintSetJson::read(text, &readError);
    if (!c->set) {
        *error = QStringLiteral("%1: %2").arg(where, readError);
        return false;
    }
    c->source = where;
    return true;
}

QString dimsText(const ConstraintSet &set)
{
    QStringList dims;
    for (const DimDecl &d : set.dims()) {
        if (d.isDerived())
            dims << QStringLiteral("%1 = %2").arg(d.name, d.relationText());
        else
            dims << QStringLiteral("%1 [%2, %3]").arg(d.name, d.min ? QString::number(*d.min) : QStringLiteral("-"),
                                                    TorchRangeText::upper(d.max));
    }
    return dims.isEmpty() ? QStringLiteral("(no named Dims)") : dims.join(QStringLiteral(", "));
}

QJsonObject emitSpec(const Capture &capture, const ConstraintSet &set, int call)
{
    return JsonSpecEmitter::document(capture, set, call);
}

void printVerification(QTextStream &out, const ExportResult &r)
{
    if (!r.verification.isEmpty())
        out << "\nverification (* = example call):\n" << r.verificationTable();
}

void printFailure(QTextStream &err, const ExportResult &r)
{
    err << "\nexport failed: " << r.failure.toText();
}

// Compiler-style lines (FILE:LINE: kind: expression, then the code), so that terminals
// and editors link them; `indent` before each.
void printExplanations(QTextStream &s, const QVector<ShapeExplanation> &all, const QString &indent)
{
    for (const ShapeExplanation &e : all)
        s << indent << QString(e.toText()).replace(QLatin1String("\n"), QLatin1String("\n") + indent) << "\n";
}

void printWhy(QTextStream &s, const ExportResult &r)
{
    if (r.explanations.isEmpty())
        return;
    s << "\nwhy: torch's shape decisions and the model lines that caused them:\n";
    printExplanations(s, r.explanations, QStringLiteral("  "));
}

// The Dim a suggested fix line changes: "seq_len = 4", "n = Dim('n', max=16)", "dy = dx".
QString fixDim(const QString &line)
{
    const int eq = line.indexOf(QLatin1String(" = "));
    return eq > 0 ? line.left(eq).trimmed() : QString();
}

QJsonObject locationJson(const SourceLocation &l)
{
    if (!l.isValid())
        return {};
    return QJsonObject{{QStringLiteral("file"), l.file}, {QStringLiteral("line"), l.line},
                       {QStringLiteral("function"), l.function}, {QStringLiteral("code"), l.code}};
}

QJsonArray explanationsJson(const QVector<ShapeExplanation> &all)
{
    QJsonArray out;
    for (const ShapeExplanation &e : all) {
        QJsonArray sources, stack;
        for (const ViolationSource &v : e.sources)
            sources.append(QJsonObject{{QStringLiteral("source"), v.source}, {QStringLiteral("path"), v.path},
                                       {QStringLiteral("dim"), v.dim}});
        for (const StackFrame &f : e.stack) {
            QJsonObject o = locationJson(f.location);
            o.insert(QStringLiteral("library"), f.library);
            stack.append(o);
        }
        out.append(QJsonObject{
            {QStringLiteral("kind"), e.kind},
            {QStringLiteral("expression"), e.expression},
            {QStringLiteral("torch_expression"), e.torchExpression},
            {QStringLiteral("dims"), QJsonArray::fromStringList(e.dims)},
            {QStringLiteral("value"), e.value ? QJsonValue(double(*e.value)) : QJsonValue()},
            {QStringLiteral("reason"), e.reason.isEmpty() ? QJsonValue() : QJsonValue(e.reason)},
            {QStringLiteral("sources"), sources},
            {QStringLiteral("location"), e.location.isValid() ? QJsonValue(locationJson(e.location)) : QJsonValue()},
            {QStringLiteral("stack"), stack}});
    }
    return out;
}

QJsonObject failureJson(const WorkerFailure &f)
{
    if (!f.isValid())
        return {};
    return QJsonObject{{QStringLiteral("kind"), f.kind}, {QStringLiteral("message"), f.message},
                       {QStringLiteral("fixes"), QJsonArray::fromStringList(f.fixes)}};
}

// --json FILE: what the command did, as data (docs/cli.md, "export --json").
struct JsonReport {
    QString path;
    QJsonArray rounds;
    QJsonArray programs;

    QJsonObject roundJson(int attempt, int round, const ExportResult &r) const
    {
        QJsonObject o{{QStringLiteral("attempt"), attempt}, {QStringLiteral("round"), round},
                      {QStringLiteral("ok"), r.ok}, {QStringLiteral("explanations"), explanationsJson(r.explanations)},
                      {QStringLiteral("applied"), QJsonArray()}, {QStringLiteral("not_applied"), QJsonArray()}};
        o.insert(QStringLiteral("failure"), r.ok ? QJsonValue() : QJsonValue(failureJson(r.failure)));
        return o;
    }
    static QJsonObject programJson(const ExportResult &r)
    {
        return QJsonObject{{QStringLiteral("output"), r.output}, {QStringLiteral("example_call"), r.exampleCall},
                           {QStringLiteral("device"), r.device}, {QStringLiteral("strict"), r.strict},
                           {QStringLiteral("explanations"), explanationsJson(r.explanations)}};
    }
    bool write(bool ok, const ExportResult &last, QTextStream &err) const
    {
        if (path.isEmpty())
            return true;
        QJsonObject doc{{QStringLiteral("format"), QStringLiteral("dimscope.export")}, {QStringLiteral("version"), 1},
                        {QStringLiteral("ok"), ok},
                        {QStringLiteral("failure"), last.ok ? QJsonValue() : QJsonValue(failureJson(last.failure))},
                        {QStringLiteral("explanations"), explanationsJson(last.explanations)},
                        {QStringLiteral("programs"), programs}, {QStringLiteral("rounds"), rounds}};
        QString why;
        if (!AtomicFile::write(path, QJsonDocument(doc).toJson(QJsonDocument::Indented), &why)) {
            err << "dimscope-cli export: cannot write " << path << ": " << why << "\n";
            return false;
        }
        return true;
    }
};


// SIGINT/SIGTERM/SIGHUP while the worker runs: the watcher's handler cancelled the
// client (the worker's process group is killed, its save folder removed); one line, and
// the shell's exit code for that signal.
int reportInterrupted(QTextStream &err, const InterruptWatcher &interrupts)
{
    err << "dimscope-cli export: interrupted by " << InterruptWatcher::signalName(interrupts.caughtSignal())
        << ": the export worker was stopped, the export did not finish\n";
    return interrupts.exitCode();
}

// After a success: every explanation with --explain; without it, the specializations
// when a dim the constraints made dynamic came out static (why it did).
void printSuccessExplanations(QTextStream &out, const ExportResult &r, bool explain, bool cameOutStatic)
{
    if (explain) {
        out << "\nexplain: torch's shape decisions on the dynamic dims and the model lines behind them";
        if (r.explanations.isEmpty())
            out << ": none\n";
        else
            out << ":\n";
        printExplanations(out, r.explanations, QStringLiteral("  "));
    } else if (cameOutStatic) {
        QVector<ShapeExplanation> specialized;
        for (const ShapeExplanation &e : r.explanations)
            if (e.kind == QLatin1String("specialized"))
                specialized.append(e);
        if (!specialized.isEmpty()) {
            out << "\nwhy static: the model lines where torch specialized a Dim:\n";
            printExplanations(out, specialized, QStringLiteral("  "));
        }
    }
}

// --fix-loop: the PhasedExport pipeline (one program for every call when torch can,
// else a program per phase), printed as it goes; then each program read back and the
// list of programs with the calls each serves. Exit 1 when a call is served by none.
int runPhases(ExportClient &client, InterruptWatcher &interrupts, const Capture &capture,
              const ConstraintSet &initial, const ExportRequest &base, QTextStream &out, QTextStream &err,
              JsonReport &json, bool explain)
{
    QVector<ShapeExplanation> lastExplanations; // the last round's: the causes of its fixes
    PhasedExport pipeline(&client);
    // A signal between two rounds finds no request to cancel: the pipeline stops too.
    QObject::connect(&interrupts, &InterruptWatcher::interrupted, &pipeline, [&pipeline] { pipeline.stop(); });
    QObject::connect(&pipeline, &PhasedExport::attemptStarted,
                     [&](int attempt, const QVector<int> &calls, const QString &description, const ConstraintSet &set) {
                         if (attempt == 1)
                             return;
                         out << "\n== phase " << attempt << ": calls " << ExportPhases::callsText(calls) << " ("
                             << description << ") ==\n  dims: " << dimsText(set) << "\n";
                     });
    QObject::connect(&pipeline, &PhasedExport::attemptSkipped,
                     [&](int, const QVector<int> &, const QString &why) { err << "phase skipped: " << why << "\n"; });
    QObject::connect(&pipeline, &PhasedExport::roundStarted, [&](int, int round) {
        out << "\n== fix loop round " << round << " ==\n";
        out.flush();
    });
    QObject::connect(&pipeline, &PhasedExport::roundFinished, [&](int attempt, int round, const ExportResult &r) {
        if (interrupts.caughtSignal() != 0)
            return;
        printVerification(out, r);
        if (!r.ok) {
            printFailure(err, r);
            printWhy(err, r);
        }
        lastExplanations = r.explanations;
        json.rounds.append(json.roundJson(attempt, round, r));
        err.flush();
    });
    QObject::connect(&pipeline, &PhasedExport::fixesApplied,
                     [&](int, int, const QStringList &applied, const QStringList &unapplied, const ConstraintSet &set,
                         bool changed) {
                         QJsonObject last = json.rounds.isEmpty() ? QJsonObject() : json.rounds.last().toObject();
                         QJsonArray appliedJson, unappliedJson;
                         for (const QString &line : applied) {
                             out << "applied: " << line << "\n";
                             // what the model did to make torch suggest it
                             const QVector<ShapeExplanation> causes = ShapeExplanation::about(lastExplanations, fixDim(line));
                             if (!causes.isEmpty()) {
                                 out << "  because:\n";
                                 printExplanations(out, causes, QStringLiteral("    "));
                             }
                             appliedJson.append(QJsonObject{{QStringLiteral("fix"), line},
                                                            {QStringLiteral("explanations"), explanationsJson(causes)}});
                         }
                         for (const QString &line : unapplied) {
                             out << "not applied: " << line << "\n";
                             unappliedJson.append(line);
                         }
                         if (!json.rounds.isEmpty()) {
                             last.insert(QStringLiteral("applied"), appliedJson);
                             last.insert(QStringLiteral("not_applied"), unappliedJson);
                             json.rounds[json.rounds.size() - 1] = last;
                         }
                         if (changed)
                             out << "constraints now: " << dimsText(set) << "\n";
                     });
    QObject::connect(&pipeline, &PhasedExport::attemptFinished, [&](int, bool, const QString &why) {
        out << "\nfix loop: " << why << "\n";
    });
    QEventLoop events;
    QObject::connect(&pipeline, &PhasedExport::finished, &events, &QEventLoop::quit);
    pipeline.start(capture, initial, base, PhasedExport::Options::from(ExportOptions{})); // --fix-loop: fixes and phases
    if (pipeline.isRunning())
        events.exec();
    if (interrupts.caughtSignal() == 0)
        client.shutdown();
    if (interrupts.caughtSignal() != 0)
        return reportInterrupted(err, interrupts);
    interrupts.restore(); // the worker is gone: reading the programs back ends on a signal

    const PhasedExportOutcome &outcome = pipeline.outcome();
    int specializedTotal = 0;
    for (const ExportedProgram &p : outcome.programs) {
        const ExportResult &r = p.result;
        if (!p.appliedFixes.isEmpty()) // what the user should keep: the constraints that exported
            out << "\nconstraints that exported"
                << (outcome.programs.size() > 1 ? QStringLiteral(" ") + r.output : QString())
                << " (dimscope.constraints):\n"
                << ConstraintSetJson::write(p.constraints);
        out << "\nexported " << r.output << " (" << r.device << (r.strict ? ", strict" : ", non-strict")
            << ", example call " << r.exampleCall << ") serving calls " << ExportPhases::callsText(p.calls) << "\n";
        const CallTree &tree = capture.calls.at(qBound(0, r.exampleCall, int(capture.calls.size()) - 1)).inputs;
        const int specialized = printExportReadBack(out, err, r.output, DimIntent::fromConstraints(tree, p.constraints));
        specializedTotal += specialized < 0 ? 1 : specialized;
        printSuccessExplanations(out, r, explain, specialized > 0);
        json.programs.append(JsonReport::programJson(r));
    }
    out << "\nprograms (" << outcome.programs.size() << "):\n";
    for (const ExportedProgram &p : outcome.programs)
        out << "  " << p.result.output << "  calls " << ExportPhases::callsText(p.calls) << "  (" << p.description
            << ")\n";
    const ExportResult lastResult = outcome.programs.isEmpty() ? ExportResult() : outcome.programs.last().result;
    if (!outcome.servesEveryCall()) {
        err << outcome.summary() << "\n";
        json.write(false, lastResult, err);
        return 1;
    }
    out << outcome.summary() << "\n";
    if (specializedTotal > 0) {
        err << "export failed the constraints' intent: a dim the constraints made dynamic came out static (see above)\n";
        json.write(false, lastResult, err);
        return 1;
    }
    return json.write(true, lastResult, err) ? 0 : 1;
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
            << "[--constraints FILE] [--device cpu|cuda] [--call N] [--strict] [--fix-loop] [--explain] "
               "[--json FILE] -o OUT.pt2\n";
        return 2;
    }
    error = refusedOutput(o);
    if (!error.isEmpty()) {
        err << "dimscope-cli export: " << TerminalText::escapedLines(error) << "\n";
        return 2;
    }
    const std::optional<Capture> capture = CaptureReader::open(o.capture, &error);
    if (!capture) {
        err << "dimscope-cli export: " << TerminalText::escapedLines(error) << "\n";
        return 2;
    }
    if (capture->calls.isEmpty()) {
        err << "dimscope-cli export: " << o.capture << ": the capture has no calls\n";
        return 2;
    }
    if (o.call >= capture->calls.size()) {
        err << "dimscope-cli export: --call " << o.call << ": " << o.capture << " has " << capture->calls.size()
            << " call(s)\n";
        return 2;
    }
    Constraints c;
    if (!loadConstraints(o, *capture, err, &c, &error)) {
        err << "dimscope-cli export: " << TerminalText::escapedLines(error) << "\n";
        return 2;
    }
    if (o.fixLoop && !c.set) {
        err << "dimscope-cli export: --fix-loop needs a constraint set (dimscope.constraints, a project file, or none "
               "to infer one) to apply the fixes to; "
            << o.constraints << " is a dynamic_shapes spec\n";
        return 2;
    }
    out << "constraints: " << c.source << "\n";
    // The example call is chosen here, from the constraints, so that the spec's
    // structure and the call the worker exports with are the same.
    int call = o.call;
    if (c.set) {
        if (call < 0)
            call = chooseExampleCall(ShapeTable(*capture), *c.set);
        out << "  dims: " << dimsText(*c.set) << "\n";
    }

    ExportClient client;
    // From here until the worker is shut down, a signal stops it rather than orphaning it.
    InterruptWatcher interrupts;
    QObject::connect(&interrupts, &InterruptWatcher::interrupted, &client, [&client] { client.cancel(); });
    QObject::connect(&client, &ExportClient::progress, [&](int, const QString &stage, const QString &message, double) {
        out << "[" << TerminalText::escaped(stage) << "] " << TerminalText::escaped(message) << "\n";
        out.flush();
    });
    QObject::connect(&client, &ExportClient::logLine, [&](int, const QString &stream, const QString &text) {
        if (stream != QLatin1String("stderr") || !text.trimmed().isEmpty())
            err << "  " << TerminalText::escaped(stream) << ": " << TerminalText::escaped(text) << "\n";
        err.flush();
    });
    out << "worker: " << client.runtime().commandLine() << " (" << client.runtime().sourceName() << ")\n";
    // Which dimscope Python package the worker imports: the installed one or the source tree's.
    out << "worker package: " << client.runtime().packageDir() << "\n";
    ExportOptions options;
    options.device = o.device;
    options.strict = o.strict;
    options.exampleCall = call;
    options.fixLoop = o.fixLoop;
    ExportRequest request = ExportRequest::make(o.model, o.capture, o.output, options);

    ExportResult last;
    JsonReport json;
    json.path = o.json;
    if (!o.fixLoop) {
        request.spec = c.set ? emitSpec(*capture, *c.set, call) : c.spec;
        const int id = client.exportModel(request);
        client.waitForFinished(id);
        if (interrupts.caughtSignal() != 0)
            return reportInterrupted(err, interrupts);
        last = client.exportResultOf(id);
        printVerification(out, last);
        json.rounds.append(json.roundJson(1, 1, last));
        if (!last.ok) {
            printFailure(err, last);
            printWhy(err, last);
            if (last.failure.hasFixes())
                err << "(--fix-loop applies the suggested fixes and exports again)\n";
        }
    } else {
        return runPhases(client, interrupts, *capture, *c.set, request, out, err, json, o.explain);
    }
    client.shutdown();
    if (interrupts.caughtSignal() != 0)
        return reportInterrupted(err, interrupts);
    interrupts.restore(); // the worker is gone: reading the program back ends on a signal
    if (!last.ok) {
        json.write(false, last, err);
        return 1;
    }
    if (last.exported)
        json.programs.append(JsonReport::programJson(last));

    out << "\nexported " << last.output << " (" << last.device << (last.strict ? ", strict" : ", non-strict")
        << ", example call " << last.exampleCall << "; model " << (last.modelReused ? "reused" : "loaded") << ")\n";
    const int exampleCall = last.exampleCall >= 0 ? last.exampleCall : qMax(call, 0);
    const CallTree &tree = capture->calls.at(qBound(0, exampleCall, int(capture->calls.size()) - 1)).inputs;
    DimIntent intent;
    if (c.set) {
        intent = DimIntent::fromConstraints(tree, *c.set);
    } else {
        QString specError;
        intent = DimIntent::fromSpec(tree, c.spec, &specError);
        if (!specError.isEmpty())
            err << "note: the spec does not match call " << exampleCall << " everywhere (" << specError
                << "); the check below covers the leaves matched\n";
    }
    const int specialized = printExportReadBack(out, err, last.output, intent);
    printSuccessExplanations(out, last, o.explain, specialized > 0);
    if (specialized < 0) {
        json.write(false, last, err);
        return 1;
    }
    if (specialized > 0) {
        err << "export failed the constraints' intent: the .pt2 was written, but it does not accept other sizes "
               "for those dims (see the violations torch would raise with named Dims, or check the model)\n";
        json.write(false, last, err);
        return 1;
    }
    return json.write(true, last, err) ? 0 : 1;
}

const CliRegistration registration({"export",
                                    "export --model REF --capture FILE [--constraints FILE] [--device cpu|cuda] [--call N] "
                                    "[--strict] [--fix-loop] [--explain] [--json FILE] -o OUT.pt2",
                                    "torch.export through the Python worker, then replay every captured call", &run});

} // namespace
