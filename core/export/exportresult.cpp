// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/exportresult.h"

#include "util/terminaltext.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QTextStream>

#include <algorithm>

namespace dimscope {

namespace {

QStringList strings(const QJsonValue &v)
{
    QStringList out;
    const QJsonArray a = v.toArray();
    for (const QJsonValue &x : a)
        out << x.toString();
    return out;
}

std::optional<qint64> optInt(const QJsonValue &v)
{
    if (v.isDouble())
        return qint64(v.toDouble());
    return std::nullopt;
}

// A `sources` list (violations, explanations): torch's text, the leaf key path, the dim.
QVector<ViolationSource> sourcesFromJson(const QJsonValue &v)
{
    QVector<ViolationSource> out;
    const QJsonArray list = v.toArray();
    for (const QJsonValue &s : list) {
        const QJsonObject so = s.toObject();
        out.append({so.value(QLatin1String("source")).toString(), so.value(QLatin1String("path")).toString(),
                    so.value(QLatin1String("dim")).toInt(-1), so.value(QLatin1String("dim_name")).toString()});
    }
    return out;
}

} // namespace

QString ViolationSource::toText() const
{
    if (path.isEmpty())
        return source;
    QString text = QStringLiteral("%1 dim %2").arg(path).arg(dim);
    if (!dimName.isEmpty())
        text += QStringLiteral(" (%1)").arg(dimName);
    return text;
}

QString WorkerViolation::leafDimsText() const
{
    QStringList parts;
    for (const ViolationSource &s : sources)
        if (!parts.contains(s.toText()))
            parts << s.toText();
    return parts.join(QStringLiteral(", "));
}

WorkerFailure WorkerFailure::make(const QString &kind, const QString &message)
{
    WorkerFailure f;
    f.kind = kind;
    f.message = message;
    f.json = QJsonObject{{QStringLiteral("kind"), kind}, {QStringLiteral("message"), message}};
    return f;
}

WorkerFailure WorkerFailure::fromJson(const QJsonObject &e)
{
    WorkerFailure f;
    f.json = e;
    f.kind = e.value(QLatin1String("kind")).toString(QStringLiteral("internal"));
    // torch's "For more information, run with TORCH_LOGS=..." is advice dimscope has
    // already followed: its explanations say which line decided what. `raw` keeps it.
    static const QRegularExpression torchLogsAdvice(QStringLiteral(R"(\s*For more information, run with TORCH_LOGS="[^"]*"\.?)"));
    f.message = e.value(QLatin1String("message")).toString().remove(torchLogsAdvice);
    f.traceback = e.value(QLatin1String("traceback")).toString();
    f.raw = e.value(QLatin1String("raw")).toString();
    f.names = strings(e.value(QLatin1String("names")));
    f.fixes = strings(e.value(QLatin1String("fixes")));
    f.hint = e.value(QLatin1String("hint")).toString();
    f.typeName = e.value(QLatin1String("type")).toString();
    f.expression = e.value(QLatin1String("expression")).toString();
    f.path = e.value(QLatin1String("path")).toString();
    const QJsonArray vs = e.value(QLatin1String("violations")).toArray();
    for (const QJsonValue &x : vs) {
        const QJsonObject o = x.toObject();
        WorkerViolation v;
        v.text = o.value(QLatin1String("text")).toString();
        v.kind = o.value(QLatin1String("kind")).toString();
        v.dims = strings(o.value(QLatin1String("dims")));
        v.sources = sourcesFromJson(o.value(QLatin1String("sources")));
        v.source = SourceLocation::fromJson(o.value(QLatin1String("source")).toObject());
        f.violations.append(v);
    }
    f.source = SourceLocation::fromJson(e.value(QLatin1String("source")).toObject());
    f.explanations = ShapeExplanation::listFromJson(e.value(QLatin1String("explanations")));
    return f;
}

QString ShapeExplanation::kindText() const
{
    return QString(kind).replace(QLatin1Char('_'), QLatin1Char(' '));
}

QString ShapeExplanation::toText() const
{
    QString text;
    if (location.isValid())
        text = QStringLiteral("%1:%2: %3: %4").arg(location.file).arg(location.line).arg(kindText(), expression);
    else
        text = QStringLiteral("%1: %2 (torch gave no line of the model)").arg(kindText(), expression);
    if (!location.code.isEmpty())
        text += QStringLiteral("\n    ") + location.code;
    return text;
}

ShapeExplanation ShapeExplanation::fromJson(const QJsonObject &o)
{
    ShapeExplanation x;
    x.kind = o.value(QLatin1String("kind")).toString();
    x.expression = o.value(QLatin1String("expression")).toString();
    x.torchExpression = o.value(QLatin1String("torch_expression")).toString();
    x.dims = strings(o.value(QLatin1String("dims")));
    x.value = optInt(o.value(QLatin1String("value")));
    x.reason = o.value(QLatin1String("reason")).toString();
    x.assertion = o.value(QLatin1String("assertion")).toString();
    x.sources = sourcesFromJson(o.value(QLatin1String("sources")));
    x.location = SourceLocation::fromJson(o.value(QLatin1String("location")).toObject());
    const QJsonArray frames = o.value(QLatin1String("stack")).toArray();
    for (const QJsonValue &f : frames) {
        const QJsonObject fo = f.toObject();
        x.stack.append({SourceLocation::fromJson(fo), fo.value(QLatin1String("library")).toBool()});
    }
    return x;
}

QVector<ShapeExplanation> ShapeExplanation::listFromJson(const QJsonValue &v)
{
    QVector<ShapeExplanation> out;
    const QJsonArray a = v.toArray();
    for (const QJsonValue &x : a)
        out.append(fromJson(x.toObject()));
    return out;
}

QVector<ShapeExplanation> ShapeExplanation::about(const QVector<ShapeExplanation> &all, const QString &name)
{
    QVector<ShapeExplanation> out;
    for (const ShapeExplanation &e : all)
        if (e.dims.contains(name))
            out.append(e);
    return out;
}

QJsonObject SourceLocation::toJson() const
{
    if (!isValid())
        return {};
    return QJsonObject{{QStringLiteral("file"), file}, {QStringLiteral("line"), line},
                       {QStringLiteral("function"), function}, {QStringLiteral("code"), code}};
}

QJsonObject ShapeExplanation::toJson() const
{
    QJsonArray sourcesJson, stackJson;
    for (const ViolationSource &v : sources)
        sourcesJson.append(QJsonObject{{QStringLiteral("source"), v.source}, {QStringLiteral("path"), v.path},
                                       {QStringLiteral("dim"), v.dim}});
    for (const StackFrame &f : stack) {
        QJsonObject frame = f.location.toJson();
        frame.insert(QStringLiteral("library"), f.library);
        stackJson.append(frame);
    }
    QJsonObject o{{QStringLiteral("kind"), kind},
                       {QStringLiteral("expression"), expression},
                       {QStringLiteral("torch_expression"), torchExpression},
                       {QStringLiteral("dims"), QJsonArray::fromStringList(dims)},
                       {QStringLiteral("value"), value ? QJsonValue(double(*value)) : QJsonValue()},
                       {QStringLiteral("reason"), reason.isEmpty() ? QJsonValue() : QJsonValue(reason)},
                       {QStringLiteral("sources"), sourcesJson},
                       {QStringLiteral("location"), location.isValid() ? QJsonValue(location.toJson()) : QJsonValue()},
                       {QStringLiteral("stack"), stackJson}};
    if (kind == QLatin1String("assumption"))
        o.insert(QStringLiteral("assertion"), assertion);
    return o;
}

SourceLocation SourceLocation::fromJson(const QJsonObject &o)
{
    SourceLocation s;
    s.file = o.value(QLatin1String("file")).toString();
    s.line = o.value(QLatin1String("line")).toInt();
    s.function = o.value(QLatin1String("function")).toString();
    s.code = o.value(QLatin1String("code")).toString();
    return s;
}

QString SourceLocation::toText() const
{
    // FILE:LINE first: the form editors and terminals turn into a link.
    QString text = QStringLiteral("%1:%2").arg(file).arg(line);
    if (!function.isEmpty())
        text += QStringLiteral(" in ") + function;
    if (!code.isEmpty())
        text += QStringLiteral(": ") + code;
    return text;
}

QString WorkerFailure::toText() const
{
    QString s;
    QTextStream out(&s);
    out << kind << ": " << message << "\n";
    if (!violations.isEmpty()) {
        out << "violations:\n";
        for (const WorkerViolation &v : violations) {
            out << "  - " << v.text << "\n";
            const QString leafDims = v.leafDimsText();
            if (!leafDims.isEmpty())
                out << "    leaf dims: " << leafDims << "\n";
            if (v.source.isValid()) // torch 2.8+: where the model specialized the Dim
                out << "    at " << v.source.toText() << "\n";
        }
    }
    if (!fixes.isEmpty()) {
        out << "suggested fixes:\n";
        for (const QString &fix : fixes)
            out << "  " << fix << "\n";
    }
    if (!expression.isEmpty())
        out << "expression: " << expression << "\n";
    if (source.isValid())
        out << "at " << source.toText() << "\n";
    if (!hint.isEmpty())
        out << "hint: " << hint << "\n";
    if (!traceback.isEmpty() && (kind == QLatin1String("model_import") || kind == QLatin1String("model_load")
                                 || kind == QLatin1String("capture") || kind == QLatin1String("export_failed")
                                 || kind == QLatin1String("internal")))
        out << traceback << (traceback.endsWith(QLatin1Char('\n')) ? "" : "\n");
    return s;
}

double CallVerification::maxAbs() const
{
    double m = 0;
    for (const OutputDiff &o : outputs)
        m = std::max(m, o.maxAbs);
    return m;
}

double CallVerification::maxRel() const
{
    double m = 0;
    for (const OutputDiff &o : outputs)
        m = std::max(m, o.maxRel);
    return m;
}

FreshProcessCheck FreshProcessCheck::fromJson(const QJsonObject &o)
{
    FreshProcessCheck check;
    check.status = o.value(QLatin1String("status")).toString();
    const QJsonObject plain = o.value(QLatin1String("plain_load")).toObject();
    check.plainLoadStatus = plain.value(QLatin1String("status")).toString();
    check.plainLoadMessage = plain.value(QLatin1String("message")).toString();
    for (const QJsonValue &line : plain.value(QLatin1String("registrations")).toArray())
        check.plainLoadRegistrations << line.toString();
    return check;
}

QJsonValue FreshProcessCheck::toJson() const
{
    if (status.isEmpty())
        return QJsonValue::Null;
    const QJsonObject plain{{QStringLiteral("status"), plainLoadStatus},
                            {QStringLiteral("message"),
                             plainLoadMessage.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(plainLoadMessage)},
                            {QStringLiteral("registrations"), QJsonArray::fromStringList(plainLoadRegistrations)}};
    return QJsonObject{{QStringLiteral("status"), status}, {QStringLiteral("plain_load"), plain}};
}

ExportResult ExportResult::fromResult(const QJsonObject &r)
{
    ExportResult x;
    x.exported = true;
    x.output = r.value(QLatin1String("output")).toString();
    x.program = r.value(QLatin1String("program")).toString(QStringLiteral("model"));
    x.held = r.value(QLatin1String("held")).toBool();
    x.exampleCall = r.value(QLatin1String("example_call")).toInt(-1);
    x.device = r.value(QLatin1String("device")).toString();
    x.strict = r.value(QLatin1String("strict")).toBool();
    x.modelReused = r.value(QLatin1String("model_reused")).toBool();
    x.captureReused = r.value(QLatin1String("capture_reused")).toBool();
    x.timings = r.value(QLatin1String("timings")).toObject();
    x.freshProcess = FreshProcessCheck::fromJson(r.value(QLatin1String("fresh_process")).toObject());
    x.draftExport = r.value(QLatin1String("draft_export")).toBool();
    x.keyedInputs = r.value(QLatin1String("keyed_inputs")).toObject();
    for (const QJsonValue &v : r.value(QLatin1String("keyed_static")).toArray())
        x.keyedStatic << v.toString();
    x.heldOut = HeldOutReplay::fromJson(r.value(QLatin1String("held_out")));
    x.explanations = ShapeExplanation::listFromJson(r.value(QLatin1String("explanations")));
    const QJsonArray rows = r.value(QLatin1String("verification")).toArray();
    for (const QJsonValue &v : rows)
        x.verification.append(CallVerification::fromJson(v.toObject()));
    const QJsonObject slice = r.value(QLatin1String("batch_slice")).toObject();
    if (!slice.isEmpty()) {
        x.batchSlice = CallVerification::fromJson(slice);
        x.batchSliceDim = slice.value(QLatin1String("dim")).toString();
    }
    x.probes = RangeProbes::fromJson(r.value(QLatin1String("probes")));
    const QJsonObject ranges = r.value(QLatin1String("range_constraints")).toObject();
    for (auto it = ranges.begin(); it != ranges.end(); ++it) {
        const QJsonArray mm = it.value().toArray();
        x.ranges.append({it.key(), optInt(mm.at(0)), optInt(mm.at(1))});
    }
    const QJsonArray inputs = r.value(QLatin1String("inputs")).toArray();
    for (const QJsonValue &v : inputs) {
        const QJsonObject o = v.toObject();
        ProgramInput in;
        in.name = o.value(QLatin1String("name")).toString();
        const QJsonArray shape = o.value(QLatin1String("shape")).toArray();
        for (const QJsonValue &s : shape)
            in.shape << (s.isString() ? s.toString() : QString::number(qint64(s.toDouble())));
        x.inputs.append(in);
    }
    x.ok = std::all_of(x.verification.begin(), x.verification.end(), [](const CallVerification &c) { return c.ok(); });
    return x;
}

ExportResult ExportResult::fromFailure(const WorkerFailure &failure)
{
    // verification_failed carries the full result: the program was written.
    const QJsonObject inner = failure.json.value(QLatin1String("result")).toObject();
    ExportResult x = inner.isEmpty() ? ExportResult() : fromResult(inner);
    x.ok = false;
    x.failure = failure;
    if (x.explanations.isEmpty())
        x.explanations = failure.explanations;
    return x;
}

CallVerification CallVerification::fromJson(const QJsonObject &o)
{
    CallVerification c;
    c.call = o.value(QLatin1String("call")).toInt();
    c.status = o.value(QLatin1String("status")).toString();
    c.message = o.value(QLatin1String("message")).toString();
    c.guard = o.value(QLatin1String("guard")).toObject().value(QLatin1String("text")).toString();
    const QJsonArray outs = o.value(QLatin1String("outputs")).toArray();
    for (const QJsonValue &ov : outs) {
        const QJsonObject oo = ov.toObject();
        OutputDiff d;
        d.path = oo.value(QLatin1String("path")).toString();
        d.maxAbs = oo.value(QLatin1String("max_abs")).toDouble();
        d.maxRel = oo.value(QLatin1String("max_rel")).toDouble();
        d.ok = oo.value(QLatin1String("ok")).toBool(true);
        if (oo.contains(QLatin1String("shape_mismatch"))) {
            d.ok = false;
            d.note = QStringLiteral("shape mismatch");
        } else if (oo.contains(QLatin1String("value_equal")) && !oo.value(QLatin1String("value_equal")).toBool()) {
            d.ok = false;
            d.note = QStringLiteral("value differs");
        }
        c.outputs.append(d);
    }
    return c;
}

QString CallVerification::note() const
{
    return guard.isEmpty() ? message.section(QLatin1Char('\n'), 0, 0) : QStringLiteral("guard failed: ") + guard;
}

QString ExportResult::verificationTable() const
{
    QString s;
    QTextStream out(&s);
    out << QStringLiteral("%1  %2  %3  %4  %5\n").arg(QStringLiteral("call"), -5).arg(QStringLiteral("status"), -12)
               .arg(QStringLiteral("max abs"), -10).arg(QStringLiteral("max rel"), -10).arg(QStringLiteral("note"));
    for (const CallVerification &c : verification) {
        const bool hasDiff = !c.outputs.isEmpty();
        out << QStringLiteral("%1  %2  %3  %4  %5\n")
                   .arg(QString::number(c.call) + (c.call == exampleCall ? QStringLiteral("*") : QString()), -5)
                   .arg(TerminalText::field(c.status), -12)
                   .arg(hasDiff ? QString::number(c.maxAbs(), 'g', 3) : QStringLiteral("-"), -10)
                   .arg(hasDiff ? QString::number(c.maxRel(), 'g', 3) : QStringLiteral("-"), -10)
                   .arg(TerminalText::escaped(c.note())); // the worker's words: one row each
    }
    return s;
}

QString ExportResult::batchSliceText() const
{
    if (batchSlice.status.isEmpty())
        return {};
    if (batchSlice.status == QLatin1String("skipped"))
        return QStringLiteral("batch-1 slice: ") + TerminalText::escaped(batchSlice.message);
    QString text = QStringLiteral("batch-1 slice of call %1 (row 0 of every input batched on %2; synthesized, not a "
                                  "recorded call): %3")
                       .arg(batchSlice.call)
                       .arg(TerminalText::escaped(batchSliceDim), TerminalText::field(batchSlice.status));
    if (!batchSlice.outputs.isEmpty())
        text += QStringLiteral(", max abs %1").arg(batchSlice.maxAbs(), 0, 'g', 3);
    if (!batchSlice.ok())
        text += QStringLiteral(": ") + TerminalText::escaped(batchSlice.note());
    return text;
}


QJsonValue ExportResult::batchSliceJson() const
{
    if (batchSlice.status.isEmpty())
        return QJsonValue();
    QJsonObject o{{QStringLiteral("synthesized"), true}, {QStringLiteral("call"), batchSlice.call},
                  {QStringLiteral("dim"), batchSliceDim.isEmpty() ? QJsonValue() : QJsonValue(batchSliceDim)},
                  {QStringLiteral("status"), batchSlice.status},
                  {QStringLiteral("message"), batchSlice.ok() ? QJsonValue() : QJsonValue(batchSlice.note())}};
    if (!batchSlice.outputs.isEmpty())
        o.insert(QStringLiteral("max_abs"), batchSlice.maxAbs());
    return o;
}

} // namespace dimscope
