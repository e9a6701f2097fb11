// SPDX-License-Identifier: GPL-3.0-or-later
// dimscope-cli inspect FILE [--json]: what a capture holds (docs/cli.md).
#include "clicommand.h"
#include "jsonstreamwriter.h"
#include "terminalsink.h"

#include "capture/callsummary.h"
#include "capture/capturereader.h"
#include "json/jsontext.h"
#include "util/terminaltext.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

#include <cmath>

using namespace dimscope;

namespace {

// The path column is at most this wide: longer paths overflow their row rather than
// padding every row of the table to the longest one (one 1 MB key path among 10,000
// leaves made 10 GB of output).
constexpr int kPathColumn = 60;

// Text from the capture in the human output: escaped, long names elided
// (docs/security.md, "Text from files in the terminal").
QString fileText(const QString &text) { return TerminalText::field(text); }


// One row of the leaves table: a key path and the calls that have it. Only the calls
// that have it are listed: a dense row (one slot per call) would cost rows x calls,
// which for many calls with varying paths is far more than the capture itself.
struct LeafRow {
    QString path;
    QVector<QPair<int, const Leaf *>> present; // (call index, leaf), by call

    // The leaf of each call in turn, nullptr where a call has none.
    template <typename PerCall>
    void forEachCall(int calls, PerCall &&perCall) const
    {
        qsizetype next = 0;
        for (int c = 0; c < calls; ++c) {
            const bool here = next < present.size() && present.at(next).first == c;
            perCall(here ? present.at(next++).second : nullptr);
        }
    }
};

// One row per key path of the calls' inputs (or, with `outputs`, their outputs).
QVector<LeafRow> leafRows(const Capture &capture, bool outputs = false)
{
    QVector<LeafRow> rows;
    QHash<QString, int> byPath;
    for (int c = 0; c < capture.calls.size(); ++c) {
        const CapturedCall &call = capture.calls.at(c);
        for (const Leaf &leaf : (outputs ? call.outputs : call.inputs).leaves) {
            auto it = byPath.constFind(leaf.path);
            int row;
            if (it == byPath.constEnd()) {
                row = rows.size();
                byPath.insert(leaf.path, row);
                rows.append({leaf.path, {}});
            } else {
                row = it.value();
            }
            // A path twice in one call (the reader refuses that) keeps its first leaf.
            QVector<QPair<int, const Leaf *>> &present = rows[row].present;
            if (present.isEmpty() || present.last().first != c)
                present.append({c, &leaf});
        }
    }
    return rows;
}

const Leaf *firstLeaf(const LeafRow &row)
{
    for (const auto &p : row.present) {
        if (p.second->isTensor())
            return p.second;
    }
    return row.present.isEmpty() ? nullptr : row.present.first().second;
}

// Python's spelling of a JSON scalar: None, True, 'text', 3.5.
QString pythonRepr(const QJsonValue &v)
{
    if (v.isNull() || v.isUndefined())
        return QStringLiteral("None");
    if (v.isBool())
        return v.toBool() ? QStringLiteral("True") : QStringLiteral("False");
    if (v.isString())
        return TerminalText::quoted(v.toString());
    // A float leaf recorded as nan or inf (value null, repr; JSON has neither): as
    // Python writes it, not as JSON's null.
    if (v.isDouble() && !std::isfinite(v.toDouble()))
        return std::isnan(v.toDouble()) ? QStringLiteral("nan") : v.toDouble() > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    return jsontext::valueText(v);
}

QString shapeText(const QVector<qint64> &shape)
{
    if (shape.isEmpty())
        return QStringLiteral("scalar");
    QStringList parts;
    for (qint64 d : shape)
        parts << QString::number(d);
    return parts.join(QLatin1Char('x'));
}

QString cellText(const Leaf *leaf)
{
    if (!leaf)
        return QStringLiteral("-");
    if (leaf->isTensor())
        return shapeText(leaf->shape);
    if (leaf->kind == NodeKind::None)
        return QStringLiteral("None");
    return nodeKindName(leaf->kind) + QLatin1Char('=') + pythonRepr(leaf->value);
}

QString signatureText(const Capture &capture)
{
    QStringList params;
    for (const Parameter &p : capture.signature) {
        const QString name = fileText(p.name);
        QString s = p.kind == QLatin1String("VAR_POSITIONAL") ? QLatin1Char('*') + name
                  : p.kind == QLatin1String("VAR_KEYWORD") ? QLatin1String("**") + name
                  : name;
        if (p.hasDefault) {
            const QString d = !p.defaultRepr.isEmpty() ? fileText(p.defaultRepr) : pythonRepr(p.defaultValue);
            s += QLatin1Char('=') + d;
        }
        params << s;
    }
    return QStringLiteral("forward(%1)").arg(params.join(QLatin1String(", ")));
}

QString listText(const QStringList &l)
{
    if (l.isEmpty())
        return QStringLiteral("-");
    QStringList names;
    for (const QString &name : l)
        names << fileText(name);
    return names.join(QLatin1String(", "));
}

QString orDash(const QString &text) { return text.isEmpty() ? QStringLiteral("-") : fileText(text); }

// What a `record` request ran (the manifest's `recording`): the model, the settings and
// every prompt, escaped (they are the user's text, read back from a file).
void printRecording(QTextStream &out, const QJsonObject &r)
{
    auto text = [&r](const char *key) {
        const QJsonValue v = r.value(QLatin1String(key));
        return v.isString() ? fileText(v.toString()) : v.isDouble() ? QString::number(v.toDouble()) : QStringLiteral("-");
    };
    const QJsonValue calls = r.value(QLatin1String("max_calls"));
    out << "recorded:    " << text("model") << " (" << text("auto_class") << "), max_new_tokens " << text("max_new_tokens")
        << ", num_beams " << text("num_beams") << ", forward calls kept: "
        << (calls.isDouble() ? QString::number(calls.toInt()) : QStringLiteral("every one")) << " of "
        << text("forward_calls") << ", padding " << text("padding_side") << "\n";
    const QJsonArray batches = r.value(QLatin1String("batches")).toArray();
    for (qsizetype b = 0; b < batches.size(); ++b) {
        QStringList prompts;
        for (const QJsonValue &p : batches.at(b).toArray())
            prompts << TerminalText::quoted(p.toString());
        out << "  generate() call " << (b + 1) << ": " << prompts.join(QLatin1String(" | ")) << "\n";
    }
    if (r.value(QLatin1String("inputs_script")).isString()) // the script ran the model: no prompts
        out << "  inputs script: " << text("inputs_script") << " (sha256 " << text("inputs_script_sha256") << ")\n";
}

void printHuman(QTextStream &out, const Capture &capture)
{
    out << "file:        " << TerminalText::escaped(capture.filePath) << " (" << capture.fileSize << " bytes, header " << capture.headerSize << " bytes)\n";
    out << "format:      dimscope.capture version " << capture.formatVersion << "\n";
    out << "producer:    " << orDash(capture.producer) << "\n";
    out << "torch:       " << orDash(capture.torchVersion) << ", transformers: " << orDash(capture.transformersVersion) << "\n";
    out << "model:       " << fileText(capture.modelClass) << "\n";
    out << "signature:   " << signatureText(capture) << "\n";
    if (!capture.flattening.isEmpty()) {
        QStringList f;
        for (auto it = capture.flattening.cbegin(); it != capture.flattening.cend(); ++it)
            f << fileText(it.key()) + QLatin1String(": ") + fileText(it.value());
        out << "flattening:  " << f.join(QLatin1String(", ")) << "\n";
    }
    if (!capture.recording.isEmpty())
        printRecording(out, capture.recording);
    out << "calls:       " << capture.calls.size() << "\n";
    for (const CapturedCall &call : capture.calls) {
        out << "\ncall " << call.index << ": " << callSummary(call.inputs) << "\n";
        out << "  missing: " << listText(call.missing) << "; filled: " << listText(call.filled)
            << "; constant kwargs: "
            << (call.constantKwargs.isEmpty() ? QStringLiteral("-")
                                              : TerminalText::escaped(QString::fromUtf8(
                                                    QJsonDocument(call.constantKwargs).toJson(QJsonDocument::Compact))))
            << "\n";
        if (!call.outputs.isEmpty())
            out << "  outputs: " << callSummary(call.outputs) << "\n";
    }
    const QVector<LeafRow> rows = leafRows(capture);
    out << "\nleaves: " << rows.size() << "\n";
    QStringList paths;
    int pathWidth = 4;
    for (const LeafRow &r : rows) {
        paths << fileText(r.path);
        pathWidth = std::min(kPathColumn, std::max(pathWidth, int(paths.last().size())));
    }
    out << QStringLiteral("path").leftJustified(pathWidth) << "  " << QStringLiteral("dtype").leftJustified(9)
        << "  shape per call\n";
    for (qsizetype i = 0; i < rows.size(); ++i) {
        const LeafRow &r = rows.at(i);
        const Leaf *first = firstLeaf(r);
        const QString dt = first && first->isTensor() ? dtype::torchName(first->dtype) : nodeKindName(first->kind);
        QStringList cells;
        r.forEachCall(int(capture.calls.size()), [&](const Leaf *l) { cells << cellText(l); });
        out << paths.at(i).leftJustified(pathWidth) << "  " << dt.leftJustified(9) << "  " << cells.join(QLatin1String(" | ")) << "\n";
    }
}

QJsonValue optionalString(const QString &s) { return s.isEmpty() ? QJsonValue() : QJsonValue(s); }

QJsonObject modelJson(const Capture &capture)
{
    QJsonArray signature;
    for (const Parameter &p : capture.signature) {
        QJsonObject o{{QStringLiteral("name"), p.name}, {QStringLiteral("kind"), p.kind}, {QStringLiteral("has_default"), p.hasDefault}};
        if (p.hasDefault) {
            if (p.defaultRepr.isEmpty())
                o.insert(QStringLiteral("default"), p.defaultValue);
            else
                o.insert(QStringLiteral("default_repr"), p.defaultRepr);
        }
        signature.append(o);
    }
    return QJsonObject{{QStringLiteral("class"), capture.modelClass}, {QStringLiteral("signature"), signature}};
}

QJsonObject callJson(const CapturedCall &call)
{
    return QJsonObject{
        {QStringLiteral("index"), call.index},
        {QStringLiteral("num_positional"), call.numPositional},
        {QStringLiteral("num_leaves"), call.inputs.leaves.size()},
        {QStringLiteral("summary"), callSummary(call.inputs)},
        {QStringLiteral("outputs_summary"), call.outputs.isEmpty() ? QJsonValue() : QJsonValue(callSummary(call.outputs))},
        {QStringLiteral("missing"), QJsonArray::fromStringList(call.missing)},
        {QStringLiteral("filled"), QJsonArray::fromStringList(call.filled)},
        {QStringLiteral("constant_kwargs"), call.constantKwargs},
    };
}

// What one call has at a leaf row's path (null when it has nothing there), members
// in sorted order as QJsonObject wrote them. Streamed token by token: this runs for
// every leaf of every call.
void writeLeafInCall(JsonStreamWriter &w, const Capture &capture, const Leaf *l)
{
    if (!l) {
        w.nullValue();
        return;
    }
    w.beginObject();
    if (l->isTensor()) {
        w.key(QStringLiteral("device"));
        w.value(l->device);
        w.key(QStringLiteral("dtype"));
        w.value(dtype::safetensorsName(l->dtype));
        w.key(QStringLiteral("kind"));
        w.value(nodeKindName(l->kind));
        w.key(QStringLiteral("shape"));
        w.beginArray();
        for (qint64 d : l->shape)
            w.value(d);
        w.endArray();
        w.key(QStringLiteral("tensor"));
        w.value(capture.tensorName(*l));
    } else {
        w.key(QStringLiteral("kind"));
        w.value(nodeKindName(l->kind));
        if (l->kind != NodeKind::None) {
            w.key(QStringLiteral("value"));
            w.value(l->value);
        }
    }
    w.endObject();
}

// Members in sorted order, as QJsonObject wrote them (see JsonStreamWriter).
void writeLeaves(JsonStreamWriter &w, const Capture &capture, const QVector<LeafRow> &rows)
{
    w.beginArray();
    for (const LeafRow &r : rows) {
        const Leaf *first = firstLeaf(r);
        w.beginObject();
        w.key(QStringLiteral("calls"));
        w.beginArray();
        r.forEachCall(int(capture.calls.size()), [&](const Leaf *l) { writeLeafInCall(w, capture, l); });
        w.endArray();
        w.key(QStringLiteral("device"));
        w.value(first->isTensor() ? QJsonValue(first->device) : QJsonValue());
        w.key(QStringLiteral("dtype"));
        w.value(first->isTensor() ? QJsonValue(dtype::safetensorsName(first->dtype)) : QJsonValue());
        w.key(QStringLiteral("kind"));
        w.value(nodeKindName(first->kind));
        w.key(QStringLiteral("path"));
        w.value(r.path);
        w.key(QStringLiteral("torch_dtype"));
        w.value(first->isTensor() ? QJsonValue(dtype::torchName(first->dtype)) : QJsonValue());
        w.endObject();
    }
    w.endArray();
}

// The --json document (docs/cli.md), streamed: memory stays about what the capture
// itself takes, however many calls it has (a QJsonDocument of it took several times
// the header: 6 GB for 1 M calls).
bool writeJson(QIODevice *out, const Capture &capture)
{
    JsonStreamWriter w(out);
    w.beginObject();
    w.key(QStringLiteral("calls"));
    w.beginArray();
    for (const CapturedCall &call : capture.calls)
        w.value(callJson(call));
    w.endArray();
    w.key(QStringLiteral("file"));
    w.value(capture.filePath);
    w.key(QStringLiteral("file_size"));
    w.value(capture.fileSize);
    QJsonObject flattening;
    for (auto it = capture.flattening.cbegin(); it != capture.flattening.cend(); ++it)
        flattening.insert(it.key(), it.value());
    w.key(QStringLiteral("flattening"));
    w.value(flattening);
    w.key(QStringLiteral("format_version"));
    w.value(capture.formatVersion);
    w.key(QStringLiteral("header_size"));
    w.value(capture.headerSize);
    w.key(QStringLiteral("leaves"));
    writeLeaves(w, capture, leafRows(capture));
    w.key(QStringLiteral("model"));
    w.value(modelJson(capture));
    w.key(QStringLiteral("output_leaves"));
    writeLeaves(w, capture, leafRows(capture, true));
    w.key(QStringLiteral("producer"));
    w.value(optionalString(capture.producer));
    w.key(QStringLiteral("recording"));
    w.value(capture.recording.isEmpty() ? QJsonValue() : QJsonValue(capture.recording));
    w.key(QStringLiteral("schema"));
    w.value(QStringLiteral("dimscope.inspect"));
    w.key(QStringLiteral("schema_version"));
    w.value(1);
    w.key(QStringLiteral("torch_version"));
    w.value(optionalString(capture.torchVersion));
    w.key(QStringLiteral("transformers_version"));
    w.value(optionalString(capture.transformersVersion));
    w.key(QStringLiteral("value_if_missing"));
    w.value(QJsonArray::fromStringList(capture.valueIfMissing));
    w.endObject();
    return w.ok();
}

int runInspect(const QStringList &args)
{
    TerminalSink stdoutSink(stdout), stderrSink(stderr);
    QTextStream out(&stdoutSink);
    QTextStream err(&stderrSink);
    bool json = false;
    QString file;
    for (const QString &a : args) {
        if (a == QLatin1String("--json")) {
            json = true;
        } else if (a == QLatin1String("--help") || a == QLatin1String("-h")) {
            out << "usage: dimscope-cli inspect FILE [--json]\n";
            return 0;
        } else if (a.startsWith(QLatin1Char('-')) || !file.isEmpty()) {
            err << "dimscope-cli inspect: unexpected argument '" << a << "' (usage: dimscope-cli inspect FILE [--json])\n";
            return 2;
        } else {
            file = a;
        }
    }
    if (file.isEmpty()) {
        err << "dimscope-cli inspect: no FILE given (usage: dimscope-cli inspect FILE [--json])\n";
        return 2;
    }
    QString error;
    const std::optional<Capture> capture = CaptureReader::open(file, &error);
    if (!capture) {
        err << "dimscope-cli inspect: " << TerminalText::escaped(error) << "\n";
        return 1;
    }
    if (json) {
        stdoutSink.setMode(TerminalSink::Mode::Json);
        if (!writeJson(&stdoutSink, *capture)) {
            err << "dimscope-cli inspect: cannot write the output: " << stdoutSink.streamError() << "\n";
            return 1;
        }
        return 0;
    }
    printHuman(out, *capture);
    return 0;
}

const CliRegistration registration(CliCommand{"inspect", "inspect FILE [--json]",
                                              "show the calls, leaves and shapes of a capture", &runInspect});

} // namespace
