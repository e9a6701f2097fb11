// SPDX-License-Identifier: GPL-3.0-or-later
#include "exportreadback.h"

#include "export/programreadback.h"
#include "pt2/torchrangetext.h"
#include "util/terminaltext.h"

#include <QTextStream>

using namespace dimscope;

namespace {

// A size in Dim names with torch's spelling beside it (the CLI has no symbols column):
// "batch (s0)", "total_len = past_len + seq_len (s11 + s70)", "4".
QString sizeText(const QString &named, const QString &torch)
{
    return named == torch ? named : QStringLiteral("%1 (%2)").arg(named, torch);
}

} // namespace

int printExportReadBack(QTextStream &out, QTextStream &err, const QString &pt2, const ProgramReadBack &back)
{
    if (!back.program || !back.mapping) {
        err << "reading the exported program back failed: " << TerminalText::escaped(back.error) << "\n";
        return -1;
    }
    const Pt2Program *program = &*back.program;
    const Pt2DimMapping &m = *back.mapping;
    out << "\nread back " << TerminalText::escaped(pt2) << " (" << program->layoutName() << ", torch "
        << (program->torchVersion.isEmpty() ? QStringLiteral("?") : TerminalText::field(program->torchVersion)) << "):\n";
    int specialized = 0;
    QStringList lost;
    for (const Pt2DimMapping::Input &in : m.inputs) {
        const Pt2UserInput &pin = program->inputs.at(in.input);
        // Names from the capture and the program: escaped, long ones elided.
        const QString label = TerminalText::field(in.leafPath.isEmpty() ? in.name : in.leafPath);
        if (pin.kind != Pt2UserInput::Kind::Tensor) {
            out << "  " << label.leftJustified(34) << " " << TerminalText::field(pin.argType) << "\n";
            continue;
        }
        QStringList sizes;
        for (int d = 0; d < in.dims.size(); ++d) {
            const Pt2DimMapping::Dim &dim = in.dims.at(d);
            QString s = TerminalText::field(sizeText(m.namedSize(dim.size), dim.size.toString()));
            if (dim.status == Pt2DimMapping::Dim::Status::Specialized) {
                s += QStringLiteral(" (!%1)").arg(dim.intended);
                ++specialized;
                lost << QStringLiteral("%1[%2]: %3 was specialized to %4")
                            .arg(label).arg(d)
                            .arg(dim.intended == QLatin1String("dynamic") ? QStringLiteral("Dim.DYNAMIC") : dim.intended)
                            .arg(dim.size.value);
            }
            sizes << s;
        }
        out << "  " << label.leftJustified(34) << " " << TerminalText::field(pin.tensor.dtype) << "[" << sizes.join(QStringLiteral(", ")) << "]\n";
    }
    out << "range constraints:\n";
    if (program->ranges.isEmpty())
        out << "  (none: the program is static)\n";
    for (const Pt2Range &r : program->ranges) {
        out << "  " << TerminalText::field(sizeText(m.namedExpression(r.expr), r.key)).leftJustified(24) << " "
            << TorchRangeText::range(r.min, r.max) << "\n";
    }
    for (auto it = m.symbolConflicts.begin(); it != m.symbolConflicts.end(); ++it)
        out << "note: " << TerminalText::field(it.key()) << " carries several Dim names: " << TerminalText::escaped(it.value().join(QStringLiteral(", ")))
            << " (torch found them equal)\n";
    for (auto it = m.dimToSymbols.begin(); it != m.dimToSymbols.end(); ++it)
        if (it.value().size() > 1)
            out << "note: Dim " << TerminalText::field(it.key()) << " became several symbols: "
                << TerminalText::escaped(it.value().join(QStringLiteral(", "))) << "\n";
    for (const QString &p : m.problems) {
        if (!p.contains(QLatin1String("was specialized to")))
            out << "note: " << TerminalText::escaped(p) << "\n";
    }
    if (specialized > 0) {
        err << "\n" << specialized << " dim(s) the constraints made dynamic came out static in the exported program:\n";
        for (const QString &l : lost)
            err << "  " << TerminalText::escaped(l) << "\n";
    } else {
        out << "every dim the constraints made dynamic (" << back.wantedDynamic << ") is symbolic in the program\n";
    }
    return specialized;
}
