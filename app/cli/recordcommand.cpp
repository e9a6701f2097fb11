// SPDX-License-Identifier: GPL-3.0-or-later
// dimscope-cli record: a model folder (or factory) and prompts in, a capture out, with
// generate() run by the export worker under dimscope's InputRecorder (issue 21 item 5,
// docs/cli.md). This file parses the arguments and prints; the request is core's
// RecordRequest sent through ExportClient::record, the project core's RecordedProject.
#include "clicommand.h"
#include "interruptwatcher.h"
#include "terminalsink.h"

#include "export/exportclient.h"
#include "export/recordedproject.h"
#include "export/recordrequest.h"
#include "project/modelreference.h"
#include "util/outputtarget.h"
#include "util/terminaltext.h"

#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QTextStream>
using namespace dimscope;

namespace {

const char kUsage[] = "record --model FOLDER|REF (--prompts FILE | --prompt TEXT ...) [--image FILE ...] [--max-new-tokens N] "
                      "[--num-beams N] [--calls N] [--tokenizer FOLDER] [--overwrite] [--trust-remote-code] "
                      "-o CAPTURE [--project OUT.dimscope]";

struct Options {
    QString model, promptsFile, output, project, tokenizer;
    QStringList prompts, images;
    int maxNewTokens = 8, numBeams = 1, calls = 0;
    bool overwrite = false, trustRemoteCode = false;
};

bool parseCount(const QString &option, const QString &value, int *out, QString *error)
{
    bool ok = false;
    *out = value.toInt(&ok);
    if (!ok || *out < 1)
        *error = QStringLiteral("%1 needs an integer >= 1, not '%2'").arg(option, TerminalText::escaped(value));
    return error->isEmpty();
}

// One argument (and its value) into *o; false, with *error, when it is not one.
bool parseArgument(const QStringList &args, int *i, Options *o, QString *error)
{
    const QString &a = args.at(*i);
    const QHash<QString, bool *> flags{{QStringLiteral("--overwrite"), &o->overwrite},
                                       {QStringLiteral("--trust-remote-code"), &o->trustRemoteCode}};
    const QHash<QString, QString *> values{
        {QStringLiteral("--model"), &o->model},     {QStringLiteral("--prompts"), &o->promptsFile},
        {QStringLiteral("-o"), &o->output},         {QStringLiteral("--output"), &o->output},
        {QStringLiteral("--project"), &o->project}, {QStringLiteral("--tokenizer"), &o->tokenizer}};
    const QHash<QString, int *> counts{{QStringLiteral("--max-new-tokens"), &o->maxNewTokens},
                                       {QStringLiteral("--num-beams"), &o->numBeams},
                                       {QStringLiteral("--calls"), &o->calls}};
    if (flags.contains(a)) {
        *flags.value(a) = true;
        return true;
    }
    const bool listed = a == QLatin1String("--prompt") || a == QLatin1String("--image");
    if (!values.contains(a) && !counts.contains(a) && !listed) {
        *error = QStringLiteral("unknown argument '%1'").arg(TerminalText::escaped(a));
        return false;
    }
    if (*i + 1 >= args.size()) {
        *error = QStringLiteral("%1 needs a value").arg(a);
        return false;
    }
    const QString v = args.at(++*i);
    if (listed)
        (a == QLatin1String("--prompt") ? o->prompts : o->images) << v;
    else if (counts.contains(a))
        return parseCount(a, v, counts.value(a), error);
    else
        *values.value(a) = v;
    return true;
}

bool parse(const QStringList &args, Options *o, QString *error)
{
    for (int i = 0; i < args.size(); ++i) {
        if (!parseArgument(args, &i, o, error))
            return false;
    }
    if (o->model.isEmpty() || o->output.isEmpty()) {
        *error = QStringLiteral("--model and -o are required");
        return false;
    }
    if (o->promptsFile.isEmpty() == o->prompts.isEmpty()) {
        *error = QStringLiteral("give either --prompts FILE or one or more --prompt TEXT");
        return false;
    }
    const std::optional<QString> model = ModelReference::fromCommandLine(o->model, QDir::current(), error);
    if (!model)
        return false;
    o->model = *model;
    return true;
}

// An output the command may write: not an input, a regular file where it exists, in a
// writable folder, and not an existing file unless --overwrite.
QString refusedOutput(const OutputTarget::Input &output, const QList<OutputTarget::Input> &inputs, bool overwrite)
{
    QString why = OutputTarget::check(output, inputs);
    if (why.isEmpty() && !overwrite && QFileInfo::exists(output.path))
        why = QStringLiteral("%1 %2 exists; give --overwrite to replace it").arg(output.role, output.path);
    return TerminalText::escaped(why);
}

QString refusedOutputs(const Options &o)
{
    QList<OutputTarget::Input> inputs;
    if (!o.promptsFile.isEmpty())
        inputs.append({QStringLiteral("--prompts"), o.promptsFile});
    const int colon = o.model.lastIndexOf(QLatin1Char(':'));
    if (colon > 0 && o.model.left(colon).endsWith(QLatin1String(".py")))
        inputs.append({QStringLiteral("the model file of --model"), o.model.left(colon)});
    for (const QString &image : o.images)
        inputs.append({QStringLiteral("--image"), image});
    const OutputTarget::Input capture{QStringLiteral("-o"), o.output};
    QString why = refusedOutput(capture, inputs, o.overwrite);
    if (why.isEmpty() && !o.project.isEmpty())
        why = refusedOutput({QStringLiteral("--project"), o.project}, inputs + QList<OutputTarget::Input>{capture},
                            o.overwrite);
    return why;
}

std::optional<RecordRequest> makeRequest(const Options &o, QString *error)
{
    RecordRequest r;
    if (!o.promptsFile.isEmpty()) {
        std::optional<PromptBatches> prompts = PromptBatches::readFile(o.promptsFile, error);
        if (!prompts)
            return std::nullopt;
        r.prompts = *prompts;
    } else {
        r.prompts = PromptBatches::oneBatch(o.prompts, QStringLiteral("--prompt"));
    }
    if (!o.images.isEmpty() && o.images.size() != r.prompts.promptCount()) {
        *error = QStringLiteral("%1 --image for %2 prompt(s): give one image per prompt, in the prompts' order")
                     .arg(o.images.size())
                     .arg(r.prompts.promptCount());
        return std::nullopt;
    }
    for (const QString &image : o.images)
        r.images << QFileInfo(image).absoluteFilePath();
    r.model = o.model;
    r.tokenizer = o.tokenizer.isEmpty() ? QString() : QFileInfo(o.tokenizer).absoluteFilePath();
    r.maxNewTokens = o.maxNewTokens;
    r.numBeams = o.numBeams;
    r.calls = o.calls;
    r.output = QFileInfo(o.output).absoluteFilePath();
    r.overwrite = o.overwrite;
    r.trustRemoteCode = o.trustRemoteCode;
    return r;
}

// Failures about what the user gave (exit 2) rather than about running it (exit 1).
bool isInputFailure(const QString &kind)
{
    static const QStringList kinds{QStringLiteral("bad_request"),  QStringLiteral("bad_model_ref"),
                                   QStringLiteral("record_input"), QStringLiteral("no_tokenizer"),
                                   QStringLiteral("prompt_too_long"), QStringLiteral("output_exists"),
                                   QStringLiteral("remote_code"), QStringLiteral("bad_image"),
                                   QStringLiteral("no_processor")};
    return kinds.contains(kind);
}

void followProgress(ExportClient &client, QTextStream &err)
{
    QObject::connect(&client, &ExportClient::progress, &client,
                     [&err](int, const QString &stage, const QString &message, double) {
                         err << "[" << TerminalText::escaped(stage) << "] " << TerminalText::escaped(message) << "\n";
                         err.flush();
                     });
    QObject::connect(&client, &ExportClient::logLine, &client, [&err](int, const QString &stream, const QString &text) {
        if (stream != QLatin1String("stderr") || !text.trimmed().isEmpty())
            err << "  " << TerminalText::escaped(stream) << ": " << TerminalText::escaped(text) << "\n";
        err.flush();
    });
}

void printResult(const QJsonObject &r, QTextStream &out)
{
    out << "recorded " << r.value(QLatin1String("calls")).toInt() << " of "
        << r.value(QLatin1String("forward_calls")).toInt() << " forward call(s) in "
        << r.value(QLatin1String("generate_calls")).toInt() << " generate() call(s) into "
        << TerminalText::escaped(r.value(QLatin1String("output")).toString()) << "\n";
    out << "  model: " << TerminalText::escaped(r.value(QLatin1String("model_class")).toString()) << ", padding "
        << TerminalText::escaped(r.value(QLatin1String("padding_side")).toString()) << "; "
        << QString::number(r.value(QLatin1String("seconds")).toDouble(), 'f', 1) << " s, peak memory "
        << qRound64(r.value(QLatin1String("max_rss_bytes")).toDouble() / (1024.0 * 1024.0)) << " MiB\n";
}

// Runs the request to its end. From the start until the worker is shut down, a signal
// stops it (its process group killed, its staging folder removed): no file is left.
int recordAndReport(const RecordRequest &request, const Options &o, QTextStream &out, QTextStream &err)
{
    ExportClient client;
    InterruptWatcher interrupts;
    followProgress(client, err);
    QObject::connect(&interrupts, &InterruptWatcher::interrupted, &client, [&client] { client.cancel(); });
    const int id = client.record(request);
    client.waitForFinished(id);
    if (interrupts.caughtSignal() != 0) {
        err << "dimscope-cli record: interrupted by " << InterruptWatcher::signalName(interrupts.caughtSignal())
            << ": the worker was stopped, nothing was written\n";
        return interrupts.exitCode();
    }
    const WorkerFailure failure = client.failureOf(id);
    if (failure.isValid()) {
        err << "dimscope-cli record: " << TerminalText::escaped(failure.kind) << ": "
            << TerminalText::escapedLines(request.describe(failure)) << "\n";
        return isInputFailure(failure.kind) ? 2 : 1;
    }
    client.shutdown();
    interrupts.restore();
    printResult(client.resultOf(id), out);
    if (o.project.isEmpty())
        return 0;
    QStringList warnings;
    QString error;
    if (!RecordedProject::write(o.project, request.output, request.model, &warnings, &error)) {
        err << "dimscope-cli record: " << TerminalText::escapedLines(error) << "\n";
        return 1;
    }
    for (const QString &w : warnings)
        err << "warning: " << TerminalText::escaped(w) << "\n";
    out << "project: " << TerminalText::escaped(o.project) << "\n";
    return 0;
}

int run(const QStringList &args)
{
    TerminalSink stdoutSink(stdout), stderrSink(stderr);
    QTextStream out(&stdoutSink);
    QTextStream err(&stderrSink);
    Options o;
    QString error;
    if (!parse(args, &o, &error)) {
        err << "dimscope-cli record: " << error << "\nusage: dimscope-cli " << kUsage << "\n";
        return 2;
    }
    error = refusedOutputs(o);
    const std::optional<RecordRequest> request = error.isEmpty() ? makeRequest(o, &error) : std::nullopt;
    if (!request) {
        err << "dimscope-cli record: " << TerminalText::escapedLines(error) << "\n";
        return 2;
    }
    return recordAndReport(*request, o, out, err);
}

const CliRegistration registration({"record", kUsage,
                                    "run generate() on prompts with a model folder or factory and record a capture",
                                    &run});

} // namespace
