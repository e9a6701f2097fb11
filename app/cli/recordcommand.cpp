// SPDX-License-Identifier: GPL-3.0-or-later
// dimscope-cli record: a model folder (or factory) and prompts in, a capture out, with
// generate() run by the export worker under dimscope's InputRecorder (issue 21 item 5,
// docs/cli.md). This file parses the arguments and prints; the request is core's
// RecordRequest sent through ExportClient::record, the project core's RecordedProject.
#include "clicommand.h"
#include "interruptwatcher.h"
#include "terminalsink.h"

#include "export/exportclient.h"
#include "export/exportresult.h"
#include "export/recordedproject.h"
#include "export/recordrequest.h"
#include "project/modelreference.h"
#include "util/outputtarget.h"
#include "util/terminaltext.h"
#include "workerlines.h"

#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QTextStream>
using namespace dimscope;

namespace {

const char kUsage[] = "record --model FOLDER|REF (--prompts FILE | --prompt TEXT ... | --audio FILE ... | --inputs-script "
                      "REF) [--image FILE ... | --audio FILE ...] [--max-new-tokens N] [--num-beams N] [--calls N] "
                      "[--tokenizer FOLDER] [--overwrite] [--trust-remote-code] -o CAPTURE [--project OUT.dimscope]";

struct Options {
    QString model, promptsFile, output, project, tokenizer, inputsScript;
    QStringList prompts, images, audio;
    int maxNewTokens = 8, numBeams = 1, calls = 0;
    bool overwrite = false, trustRemoteCode = false;
    QStringList given; // the options on the command line, for those that exclude others
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
        {QStringLiteral("--project"), &o->project}, {QStringLiteral("--tokenizer"), &o->tokenizer},
        {QStringLiteral("--inputs-script"), &o->inputsScript}};
    const QHash<QString, int *> counts{{QStringLiteral("--max-new-tokens"), &o->maxNewTokens},
                                       {QStringLiteral("--num-beams"), &o->numBeams},
                                       {QStringLiteral("--calls"), &o->calls}};
    o->given << a;
    if (flags.contains(a)) {
        *flags.value(a) = true;
        return true;
    }
    const QHash<QString, QStringList *> lists{{QStringLiteral("--prompt"), &o->prompts},
                                              {QStringLiteral("--image"), &o->images},
                                              {QStringLiteral("--audio"), &o->audio}};
    const bool listed = lists.contains(a);
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
        *lists.value(a) << v;
    else if (counts.contains(a))
        return parseCount(a, v, counts.value(a), error);
    else
        *values.value(a) = v;
    return true;
}

bool absoluteModel(Options *o, QString *error)
{
    const std::optional<QString> model = ModelReference::fromCommandLine(o->model, QDir::current(), error);
    if (model)
        o->model = *model;
    return model.has_value();
}

// --inputs-script runs the model itself: it takes no prompts, media or generation
// settings, and names a function (file.py:calls or package.module:calls), made absolute
// against the current folder and refused when disguised, like --model.
bool parseInputsScript(Options *o, QString *error)
{
    static const QStringList excluded{QStringLiteral("--prompts"),        QStringLiteral("--prompt"),
                                      QStringLiteral("--image"),          QStringLiteral("--audio"),
                                      QStringLiteral("--max-new-tokens"), QStringLiteral("--num-beams")};
    for (const QString &option : excluded) {
        if (o->given.contains(option)) {
            *error = QStringLiteral("--inputs-script runs the model itself: %1 cannot be given with it").arg(option);
            return false;
        }
    }
    QString why;
    const std::optional<ModelReference> ref = ModelReference::resolve(o->inputsScript, QDir::current(), &why);
    if (!ref || ref->kind() == ModelReference::Kind::Folder) {
        *error = QStringLiteral("--inputs-script %1: %2")
                     .arg(TerminalText::escaped(o->inputsScript),
                          why.isEmpty() ? QStringLiteral("expected file.py:function or package.module:function")
                                        : TerminalText::escaped(why));
        return false;
    }
    o->inputsScript = ref->text();
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
    if (!o->inputsScript.isEmpty())
        return parseInputsScript(o, error) && absoluteModel(o, error);
    if (!o->images.isEmpty() && !o->audio.isEmpty()) {
        *error = QStringLiteral("give --image or --audio, not both");
        return false;
    }
    if (!o->promptsFile.isEmpty() && !o->prompts.isEmpty()) {
        *error = QStringLiteral("give either --prompts FILE or one or more --prompt TEXT");
        return false;
    }
    if (o->promptsFile.isEmpty() && o->prompts.isEmpty() && o->audio.isEmpty()) {
        *error = QStringLiteral("give --prompts FILE, one or more --prompt TEXT, --audio FILE or --inputs-script REF");
        return false;
    }
    return absoluteModel(o, error);
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
    const auto pythonFile = [&inputs](const QString &ref, const QString &role) {
        const int colon = ref.lastIndexOf(QLatin1Char(':'));
        if (colon > 0 && ref.left(colon).endsWith(QLatin1String(".py")))
            inputs.append({role, ref.left(colon)});
    };
    pythonFile(o.model, QStringLiteral("the model file of --model"));
    pythonFile(o.inputsScript, QStringLiteral("the file of --inputs-script"));
    for (const QString &image : o.images)
        inputs.append({QStringLiteral("--image"), image});
    for (const QString &clip : o.audio)
        inputs.append({QStringLiteral("--audio"), clip});
    const OutputTarget::Input capture{QStringLiteral("-o"), o.output};
    QString why = refusedOutput(capture, inputs, o.overwrite);
    if (why.isEmpty() && !o.project.isEmpty())
        why = refusedOutput({QStringLiteral("--project"), o.project}, inputs + QList<OutputTarget::Input>{capture},
                            o.overwrite);
    return why;
}

// The prompts, and one image or audio file per prompt. Audio files alone form one batch,
// each named by its file name (the prompt's text names a clip; the model gets the audio).
bool addPrompts(const Options &o, RecordRequest *r, QString *error)
{
    if (!o.promptsFile.isEmpty()) {
        std::optional<PromptBatches> prompts = PromptBatches::readFile(o.promptsFile, error);
        if (!prompts)
            return false;
        r->prompts = *prompts;
    } else if (!o.prompts.isEmpty()) {
        r->prompts = PromptBatches::oneBatch(o.prompts, QStringLiteral("--prompt"));
    } else {
        QStringList names;
        for (const QString &clip : o.audio)
            names << QFileInfo(clip).fileName();
        r->prompts = PromptBatches::oneBatch(names, QStringLiteral("--audio"));
    }
    const bool images = !o.images.isEmpty();
    const QStringList &files = images ? o.images : o.audio;
    if (!files.isEmpty() && files.size() != r->prompts.promptCount()) {
        const QString option = images ? QStringLiteral("--image") : QStringLiteral("--audio");
        *error = QStringLiteral("%1 %2 for %3 prompt(s): give one %4 per prompt, in the prompts' order")
                     .arg(files.size())
                     .arg(option)
                     .arg(r->prompts.promptCount())
                     .arg(images ? QStringLiteral("image") : QStringLiteral("audio file"));
        return false;
    }
    for (const QString &file : files)
        (images ? r->images : r->audio) << QFileInfo(file).absoluteFilePath();
    return true;
}

std::optional<RecordRequest> makeRequest(const Options &o, QString *error)
{
    RecordRequest r;
    if (o.inputsScript.isEmpty() && !addPrompts(o, &r, error))
        return std::nullopt;
    r.inputsScript = o.inputsScript;
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

// Failures about what the user gave (exit 2) rather than about running it (exit 1): an
// inputs script that cannot be found is the first, one that raises the second (as a
// model factory that raises is model_load).
bool isInputFailure(const WorkerFailure &failure)
{
    static const QStringList kinds{QStringLiteral("bad_request"),  QStringLiteral("bad_model_ref"),
                                   QStringLiteral("record_input"), QStringLiteral("no_tokenizer"),
                                   QStringLiteral("prompt_too_long"), QStringLiteral("output_exists"),
                                   QStringLiteral("remote_code"), QStringLiteral("bad_image"),
                                   QStringLiteral("bad_audio"), QStringLiteral("no_processor")};
    return kinds.contains(failure.kind)
           || (failure.kind == QLatin1String("inputs_script")
               && failure.json.value(QLatin1String("stage")).toString() == QLatin1String("resolve"));
}

void printResult(const QJsonObject &r, QTextStream &out)
{
    const QJsonValue script = r.value(QLatin1String("inputs_script"));
    out << "recorded " << r.value(QLatin1String("calls")).toInt() << " of "
        << r.value(QLatin1String("forward_calls")).toInt() << " forward call(s) "
        << (script.isString() ? QStringLiteral("of the inputs script %1").arg(TerminalText::escaped(script.toString()))
                              : QStringLiteral("in %1 generate() call(s)")
                                    .arg(r.value(QLatin1String("generate_calls")).toInt()))
        << " into " << TerminalText::escaped(r.value(QLatin1String("output")).toString()) << "\n";
    const QJsonValue padding = r.value(QLatin1String("padding_side"));
    out << "  model: " << TerminalText::escaped(r.value(QLatin1String("model_class")).toString())
        << (padding.isString() ? QStringLiteral(", padding %1").arg(TerminalText::escaped(padding.toString()))
                               : QString())
        << "\n";
    // The peak is this recording's where the worker could reset its high-water mark,
    // else the worker's since it started (docs/worker-protocol.md, "record").
    const bool ownPeak = r.value(QLatin1String("max_rss_scope")).toString() == QLatin1String("request");
    out << "  time " << QString::number(r.value(QLatin1String("seconds")).toDouble(), 'f', 1)
        << " s, peak memory " << qRound64(r.value(QLatin1String("max_rss_bytes")).toDouble() / (1024.0 * 1024.0))
        << " MiB " << (ownPeak ? "(the worker, while recording)" : "(the worker, since it started)") << "\n";
}

// Runs the request to its end. From the start until the worker is shut down, a signal
// stops it (its process group killed, its staging folder removed): no file is left.
int recordAndReport(const RecordRequest &request, const Options &o, QTextStream &out, QTextStream &err)
{
    ExportClient client;
    InterruptWatcher interrupts;
    WorkerLines::follow(client, err, err, WorkerLines::Log::AllButBlankStderr);
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
        return isInputFailure(failure) ? 2 : 1;
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
