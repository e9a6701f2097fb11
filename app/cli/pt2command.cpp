// SPDX-License-Identifier: GPL-3.0-or-later
// dimscope-cli pt2 FILE [--json]: what Pt2Reader sees in a torch.export archive.
#include "clicommand.h"
#include "terminalsink.h"

#include "pt2/pt2dimmapper.h"
#include "json/pt2json.h"
#include "pt2/pt2reader.h"
#include "json/jsontext.h"
#include "util/terminaltext.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTextStream>

using namespace dimscope;

namespace {

constexpr int kListedState = 12; // parameters/buffers listed before "... N more"

// Every name, version and expression below comes from the archive: shown escaped,
// long ones elided (docs/security.md, "Text from files in the terminal").
QString fileText(const QString &text) { return TerminalText::field(text); }

QString shownList(const QStringList &names)
{
    QStringList out;
    for (const QString &n : names)
        out << fileText(n);
    return out.join(QLatin1String(", "));
}

QString orQuestionMark(const QString &text) { return text.isEmpty() ? QStringLiteral("?") : fileText(text); }

QString useText(const Pt2DimUse &u)
{
    const QString where = QStringLiteral("%1[%2]").arg(fileText(u.path.isEmpty() ? u.inputName : u.path)).arg(u.dim);
    return u.expr.isBareSymbol() ? where : QStringLiteral("%1 (= %2)").arg(where, fileText(u.expr.toString()));
}

void printState(QTextStream &out, const Pt2Program &p, Pt2StateInput::Kind kind, const QString &title)
{
    const int n = p.countState(kind);
    if (n == 0)
        return;
    out << title << " (" << n << "):\n";
    int shown = 0;
    for (const Pt2StateInput &s : p.state) {
        if (s.kind != kind)
            continue;
        if (shown++ == kListedState) {
            out << "  ... " << (n - kListedState) << " more (--json lists all)\n";
            break;
        }
        out << "  " << fileText(s.target).leftJustified(32) << " " << (s.tensor ? fileText(s.tensor->shapeString()) : QStringLiteral("-"));
        if (kind == Pt2StateInput::Kind::Buffer && !s.persistent)
            out << "  (not persistent)";
        out << "\n";
    }
}

void printText(QTextStream &out, const Pt2Program &p)
{
    out << TerminalText::escaped(p.filePath);
    if (p.modelNames.size() > 1)
        out << ", program " << fileText(p.modelName);
    out << "\n";
    out << "layout: " << p.layoutName() << ", record " << fileText(p.jsonEntry);
    if (p.layout == Pt2Layout::Archive && p.modelNames.size() > 1)
        out << " (models: " << shownList(p.modelNames) << ")";
    out << "\n";
    out << "versions: archive " << orQuestionMark(p.archiveVersion);
    if (!p.pt2ArchiveVersion.isEmpty())
        out << ", pt2 archive " << fileText(p.pt2ArchiveVersion);
    out << ", schema " << (p.schemaMajor < 0 ? QStringLiteral("?") : QStringLiteral("%1.%2").arg(p.schemaMajor).arg(p.schemaMinor));
    out << ", torch " << orQuestionMark(p.torchVersion) << "\n";
    if (!p.forwardArgNames.isEmpty())
        out << "forward(" << shownList(p.forwardArgNames) << ")\n";

    out << "inputs (" << p.inputs.size() << "):\n";
    for (const Pt2UserInput &in : p.inputs) {
        out << "  " << fileText(in.name).leftJustified(32) << " ";
        switch (in.kind) {
        case Pt2UserInput::Kind::Tensor:
            out << fileText(in.tensor.shapeString()) << "  " << fileText(in.tensor.device);
            break;
        case Pt2UserInput::Kind::SymInt:
            out << "SymInt " << (in.symInt ? fileText(in.symInt->toString()) : QStringLiteral("?"));
            break;
        case Pt2UserInput::Kind::Constant:
            out << "constant " << fileText(jsontext::valueText(in.constant));
            break;
        case Pt2UserInput::Kind::Other:
            out << fileText(in.argType);
            break;
        }
        if (!in.path.isEmpty() && in.path != in.name)
            out << "  <- " << fileText(in.path);
        out << "\n";
    }
    printState(out, p, Pt2StateInput::Kind::Parameter, QStringLiteral("parameters"));
    printState(out, p, Pt2StateInput::Kind::Buffer, QStringLiteral("buffers"));
    printState(out, p, Pt2StateInput::Kind::TensorConstant, QStringLiteral("tensor constants"));
    printState(out, p, Pt2StateInput::Kind::CustomObj, QStringLiteral("custom objects"));
    printState(out, p, Pt2StateInput::Kind::Token, QStringLiteral("effect tokens"));

    out << "outputs (" << p.outputs.size() << "):\n";
    for (const Pt2Output &o : p.outputs) {
        out << "  " << fileText(o.kind).leftJustified(14) << " " << (o.name.isEmpty() ? QStringLiteral("-") : fileText(o.name));
        if (o.tensor)
            out << "  " << fileText(o.tensor->shapeString());
        if (!o.target.isEmpty())
            out << "  -> " << fileText(o.target);
        out << "\n";
    }

    out << "range constraints (" << p.ranges.size() << "):\n";
    for (const Pt2Range &r : p.ranges)
        out << "  " << fileText(r.key).leftJustified(12) << " " << fileText(r.toString()) << "\n";

    const auto uses = Pt2DimMapper::symbolUses(p);
    out << "symbols (" << uses.size() << "):\n";
    for (const QString &symbol : p.inputSymbols()) {
        QStringList where;
        for (const Pt2DimUse &u : uses.value(symbol))
            where << useText(u);
        const auto range = p.rangeOf(SymExpr::symbol(symbol));
        out << "  " << fileText(symbol) << " " << (range ? fileText(range->toString()) : QStringLiteral("(no range)")) << " -> "
            << where.join(QLatin1String(", ")) << "\n";
    }
    for (const QString &w : p.warnings)
        out << "warning: " << TerminalText::escaped(w) << "\n";
}

int runPt2(const QStringList &args)
{
    TerminalSink stdoutSink(stdout), stderrSink(stderr);
    QTextStream out(&stdoutSink);
    QTextStream err(&stderrSink);
    bool json = false;
    QString file;
    for (const QString &a : args) {
        if (a == QLatin1String("--json")) {
            json = true;
        } else if (a.startsWith(QLatin1String("-")) && a.size() > 1) {
            err << "dimscope-cli pt2: unknown option " << a << " (usage: dimscope-cli pt2 FILE [--json])\n";
            return 2;
        } else if (file.isEmpty()) {
            file = a;
        } else {
            err << "dimscope-cli pt2: one FILE only (usage: dimscope-cli pt2 FILE [--json])\n";
            return 2;
        }
    }
    if (file.isEmpty()) {
        err << "usage: dimscope-cli pt2 FILE [--json]\n";
        return 2;
    }
    QString error;
    // Every program of the archive (dimscope's phased export writes them into one).
    const QVector<Pt2Program> programs = Pt2Reader::openAll(file, &error);
    if (programs.isEmpty()) {
        err << "dimscope-cli pt2: " << TerminalText::escaped(error) << "\n";
        return 1;
    }
    if (json) {
        stdoutSink.setMode(TerminalSink::Mode::Json);
        // The first program at the top level, as for a file of one; with several, each
        // of them under "programs" too.
        QJsonObject root = Pt2Json::toJson(programs.first());
        if (programs.size() > 1) {
            QJsonArray all;
            for (const Pt2Program &p : programs)
                all.append(Pt2Json::toJson(p));
            root.insert(QStringLiteral("programs"), all);
        }
        out << QJsonDocument(root).toJson(QJsonDocument::Indented);
        return 0;
    }
    for (int i = 0; i < programs.size(); ++i) {
        if (i > 0)
            out << "\n";
        printText(out, programs.at(i));
    }
    return 0;
}

const CliRegistration registration(CliCommand{"pt2", "pt2 FILE [--json]",
                                              "show the inputs, symbolic sizes and ranges of a torch.export .pt2", runPt2});

} // namespace
