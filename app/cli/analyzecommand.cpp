// SPDX-License-Identifier: GPL-3.0-or-later
// dimscope-cli analyze: shape inference, constraint validation and dynamic_shapes
// output for a capture (docs/cli.md, "analyze").
#include "clicommand.h"
#include "terminalsink.h"

#include "capture/capturereader.h"
#include "pt2/torchrangetext.h"
#include "constraints/constraintsetjson.h"
#include "constraints/constraintvalidator.h"
#include "spec/jsonspecemitter.h"
#include "spec/pythonspecemitter.h"
#include "inference/captureanalysis.h"
#include "util/terminaltext.h"

#include <QTextStream>

using namespace dimscope;

namespace {

// Columns are at most this wide: a longer cell overflows its row rather than padding
// every row to it (output stays proportional to the capture).
constexpr int kPathColumn = 56;
constexpr int kSpecColumn = 48;
constexpr int kDimColumn = 32;

// Names from the capture or the constraint set, as printed: escaped, long ones elided
// (docs/security.md, "Text from files in the terminal").
QString fileText(const QString &text) { return TerminalText::field(text); }

struct AnalyzeArgs {
    QString capture;
    QString format = QStringLiteral("table");
    QString constraints;
    InferenceOptions options;
    int exampleCall = -1;
};

// Returns an error for bad usage.
QString parseArgs(const QStringList &args, AnalyzeArgs *out)
{
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args[i];
        auto value = [&](QString *into) {
            if (i + 1 >= args.size() || args[i + 1].startsWith(QLatin1String("--")))
                return false;
            *into = args[++i];
            return true;
        };
        if (a == QLatin1String("--format")) {
            if (!value(&out->format))
                return QStringLiteral("--format needs a value: table, python, json or spec");
            static const QStringList formats = {QStringLiteral("table"), QStringLiteral("python"), QStringLiteral("json"), QStringLiteral("spec")};
            if (!formats.contains(out->format))
                return QStringLiteral("unknown format '%1' (table, python, json, spec)").arg(out->format);
        } else if (a == QLatin1String("--all-dynamic")) {
            out->options.mode = InferenceOptions::Mode::AllDynamic;
        } else if (a == QLatin1String("--batch-dim")) {
            int n = 0;
            while (i + 1 < args.size() && !args[i + 1].startsWith(QLatin1String("--"))) {
                const QString name = args[++i];
                if (name == QLatin1String("all"))
                    out->options.batchForAll = true;
                else
                    out->options.batchFor << name;
                ++n;
            }
            if (n == 0)
                return QStringLiteral("--batch-dim needs input names, or 'all'");
        } else if (a == QLatin1String("--constraints")) {
            if (!value(&out->constraints))
                return QStringLiteral("--constraints needs a file");
        } else if (a == QLatin1String("--example-call")) {
            QString v;
            bool ok = false;
            if (value(&v))
                out->exampleCall = v.toInt(&ok);
            if (!ok || out->exampleCall < 0)
                return QStringLiteral("--example-call needs a call index");
        } else if (a.startsWith(QLatin1String("--"))) {
            return QStringLiteral("unknown option '%1'").arg(a);
        } else if (out->capture.isEmpty()) {
            out->capture = a;
        } else {
            return QStringLiteral("unexpected argument '%1'").arg(a);
        }
    }
    if (out->capture.isEmpty())
        return QStringLiteral("missing CAPTURE");
    return {};
}

QString shapeText(const ShapeTable &t, int leaf, int call)
{
    if (!t.present(leaf, call))
        return QStringLiteral("-");
    const auto &info = t.leaf(leaf);
    if (info.rank == 0)
        return QStringLiteral("()");
    QStringList parts;
    for (int d = 0; d < info.rank; ++d)
        parts << QString::number(t.value(info.firstDim + d, call));
    return parts.join(QLatin1Char('x'));
}

void printTable(QTextStream &out, const Capture &capture, const InferenceResult &r, const AnalyzeArgs &a)
{
    const ShapeTable &t = r.table;
    const ConstraintSet &set = r.constraints;
    const int example = a.exampleCall >= 0 ? a.exampleCall : r.exampleCall;
    QString mode = a.options.mode == InferenceOptions::Mode::AllDynamic ? QStringLiteral("all dynamic") : QStringLiteral("observed");
    if (a.options.batchForAll)
        mode += QStringLiteral(", batch on dim 0 of every input");
    else if (!a.options.batchFor.isEmpty())
        mode += QStringLiteral(", batch on dim 0 of ") + a.options.batchFor.join(QStringLiteral(", "));
    out << "capture: " << TerminalText::escaped(capture.filePath) << "\n";
    out << "model:   " << (capture.modelClass.isEmpty() ? QStringLiteral("?") : fileText(capture.modelClass)) << ", " << t.callCount()
        << " call(s), mode " << mode << ", example call " << example << "\n\n";

    QStringList paths;
    int width = 4;
    for (const auto &leaf : t.leaves()) {
        paths << fileText(leaf.path);
        width = std::max(width, int(paths.last().size()));
    }
    width = std::min(width, kPathColumn);
    QVector<QString> specs;
    int specWidth = 4;
    for (int li = 0; li < t.leafCount(); ++li) {
        const auto &info = t.leaf(li);
        QStringList dims;
        int ref = example;
        for (int c = 0; !t.present(li, ref) && c < t.callCount(); ++c)
            ref = c;
        for (int d = 0; d < info.rank; ++d) {
            const DimAssignment as = set.assignment(info.path, d);
            dims << (as.isStatic() ? (t.present(li, ref) ? QString::number(t.value(info.firstDim + d, ref)) : QStringLiteral("?"))
                                   : as.isNamed() ? fileText(as.dim) : QStringLiteral("*") + fileText(as.toString()));
        }
        specs << QLatin1Char('[') + dims.join(QStringLiteral(", ")) + QLatin1Char(']');
        specWidth = std::max(specWidth, int(specs.last().size()));
    }
    specWidth = std::min(specWidth, kSpecColumn);
    out << QStringLiteral("leaves").leftJustified(width + 4) << QStringLiteral("dims").leftJustified(specWidth)
        << "  shape per call (- = not passed)\n";
    const int shown = std::min(t.callCount(), 8);
    for (int li = 0; li < t.leafCount(); ++li) {
        QStringList shapes;
        for (int c = 0; c < shown; ++c)
            shapes << shapeText(t, li, c);
        if (t.callCount() > shown)
            shapes << QStringLiteral("... (+%1)").arg(t.callCount() - shown);
        out << "  " << paths.at(li).leftJustified(width) << "  " << specs[li].leftJustified(specWidth) << "  "
            << shapes.join(QLatin1Char(' ')) << "\n";
    }

    out << "\ndims\n";
    if (set.dims().isEmpty())
        out << "  (none: every dimension is static)\n";
    int nameWidth = 4;
    for (const DimDecl &d : set.dims())
        nameWidth = std::min(kDimColumn, std::max(nameWidth, int(fileText(d.name).size())));
    for (const DimDecl &d : set.dims()) {
        QVector<qint64> merged(t.callCount(), -1);
        int uses = 0;
        for (const DimObservation &o : r.observations) {
            if (o.dimName != d.name)
                continue;
            ++uses;
            for (int c = 0; c < merged.size(); ++c)
                merged[c] = o.values[c] >= 0 ? o.values[c] : merged[c];
        }
        QStringList values;
        for (int c = 0; c < std::min(int(merged.size()), 12); ++c)
            values << (merged[c] < 0 ? QStringLiteral("-") : QString::number(merged[c]));
        if (merged.size() > 12)
            values << QStringLiteral("...");
        const QString what = d.isDerived()
            ? QStringLiteral("= %1").arg(fileText(d.relationText()))
            : QStringLiteral("min %1, max %2")
                  .arg(d.min ? QString::number(*d.min) : QStringLiteral("default"), TorchRangeText::upper(d.max));
        out << "  " << fileText(d.name).leftJustified(nameWidth) << "  " << what.leftJustified(22) << "  " << uses << " dim(s), values "
            << values.join(QLatin1Char(' ')) << "\n";
    }
    const struct {
        InferenceMessage::Severity severity;
        const char *title;
    } sections[] = {{InferenceMessage::Severity::Error, "errors"},
                    {InferenceMessage::Severity::Warning, "warnings"},
                    {InferenceMessage::Severity::Note, "notes"}};
    for (const auto &s : sections) {
        const QStringList texts = r.texts(s.severity);
        if (texts.isEmpty())
            continue;
        out << "\n" << s.title << "\n";
        for (const QString &text : texts)
            out << "  - " << TerminalText::escaped(text) << "\n";
    }
}

int runAnalyze(const QStringList &argv)
{
    TerminalSink stdoutSink(stdout), stderrSink(stderr);
    QTextStream out(&stdoutSink);
    QTextStream err(&stderrSink);
    AnalyzeArgs a;
    const QString usage = parseArgs(argv, &a);
    if (!usage.isEmpty()) {
        err << "dimscope-cli analyze: " << usage << "\n";
        return 2;
    }
    QString error;
    // The generated spec and constraint set are Python and JSON: what the terminal
    // must not see raw is written as their escapes there (TerminalSink).
    if (a.format == QLatin1String("python"))
        stdoutSink.setMode(TerminalSink::Mode::Python);
    else if (a.format == QLatin1String("json") || a.format == QLatin1String("spec"))
        stdoutSink.setMode(TerminalSink::Mode::Json);
    const std::optional<Capture> capture = CaptureReader::open(a.capture, &error);
    if (!capture) {
        err << "dimscope-cli analyze: " << TerminalText::escaped(error) << "\n";
        return 2;
    }
    if (a.exampleCall >= capture->calls.size()) {
        err << "dimscope-cli analyze: --example-call " << a.exampleCall << ": the capture has " << capture->calls.size() << " call(s)\n";
        return 2;
    }

    if (!a.constraints.isEmpty()) {
        const auto set = ConstraintSetJson::readFile(a.constraints, &error);
        if (!set) {
            err << "dimscope-cli analyze: " << TerminalText::escaped(error) << "\n";
            return 2;
        }
        const ValidationReport report = ConstraintValidator(ShapeTable(*capture)).validate(*set);
        QTextStream &sink = a.format == QLatin1String("table") ? out : err;
        if (report.ok())
            sink << TerminalText::escaped(a.constraints) << ": holds on all " << capture->calls.size() << " call(s) of "
                 << TerminalText::escaped(a.capture) << "\n";
        for (const ConstraintViolation &v : report.violations)
            sink << "[" << ConstraintViolation::ruleName(v.rule) << "] " << TerminalText::escaped(v.message) << "\n";
        if (report.total > report.violations.size())
            sink << "... and " << report.total - report.violations.size() << " more\n";
        if (!report.ok())
            sink << report.total << " violation(s) of " << TerminalText::escaped(a.constraints) << "\n";
        if (a.format == QLatin1String("python"))
            out << PythonSpecEmitter::generate(*capture, *set, a.exampleCall);
        else if (a.format == QLatin1String("spec"))
            out << JsonSpecEmitter::generate(*capture, *set, a.exampleCall);
        else if (a.format == QLatin1String("json"))
            out << ConstraintSetJson::write(*set);
        return report.ok() ? 0 : 1;
    }

    // Without --batch-dim, what export and the GUI infer: a transformers model's batch dim is dynamic.
    const InferenceResult r = CaptureAnalysis::infer(*capture, a.options);
    if (a.format == QLatin1String("table")) {
        printTable(out, *capture, r, a);
        return r.hasErrors() ? 1 : 0;
    }
    for (const QString &e : r.texts(InferenceMessage::Severity::Error))
        err << "error: " << TerminalText::escaped(e) << "\n";
    for (const QString &w : r.texts(InferenceMessage::Severity::Warning))
        err << "warning: " << TerminalText::escaped(w) << "\n";
    if (a.format == QLatin1String("python"))
        out << PythonSpecEmitter::generate(*capture, r.constraints, a.exampleCall >= 0 ? a.exampleCall : r.exampleCall);
    else if (a.format == QLatin1String("spec"))
        out << JsonSpecEmitter::generate(*capture, r.constraints, a.exampleCall >= 0 ? a.exampleCall : r.exampleCall);
    else
        out << ConstraintSetJson::write(r.constraints);
    return r.hasErrors() ? 1 : 0;
}

const CliRegistration registration(CliCommand{
    "analyze",
    "analyze CAPTURE [--format table|python|json|spec] [--all-dynamic] [--batch-dim NAME...|all] [--constraints FILE] [--example-call N]",
    "infer dynamic dims, print or validate constraints, emit dynamic_shapes",
    &runAnalyze});

} // namespace
