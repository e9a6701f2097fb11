// SPDX-License-Identifier: GPL-3.0-or-later
#include "spec/hintspecemitter.h"

#include "constraints/constraintset.h"
#include "spec/pythonspecemitter.h"
#include "spec/spectree.h"
#include "spec/torchfeatures.h"
#include "util/terminaltext.h"

namespace dimscope {

namespace {

QString boundsText(const DimDecl &d)
{
    QStringList bounds;
    if (d.min)
        bounds << QStringLiteral("min=%1").arg(*d.min);
    if (d.max)
        bounds << QStringLiteral("max=%1").arg(*d.max);
    return bounds.join(QStringLiteral(", "));
}

QString hintLine(const DimDecl &d, const TorchFeatures &torch)
{
    const QString var = PythonSpecEmitter::variable(d.name);
    if (d.isDerived())
        return QStringLiteral("%1 = Dim.DYNAMIC  # %2 = %3: torch finds the relation from the model\n")
            .arg(var, d.name, d.relationText());
    const QString bounds = boundsText(d);
    if (bounds.isEmpty())
        return QStringLiteral("%1 = Dim.DYNAMIC\n").arg(var);
    const std::optional<bool> takes = torch.hintsTakeBounds();
    if (!takes)
        return QStringLiteral("%1 = bounded(Dim.DYNAMIC, %2)\n").arg(var, bounds);
    if (*takes)
        return QStringLiteral("%1 = Dim.DYNAMIC(%2)\n").arg(var, bounds);
    // The version comes from the worker: escaped, it cannot end the comment.
    return QStringLiteral("%1 = Dim.DYNAMIC  # %2: torch %3 takes no range on a hint\n")
        .arg(var, bounds, TerminalText::field(torch.version()));
}

} // namespace

QString HintSpecEmitter::body(const ConstraintSet &set, const SpecNode &tree, const QStringList &used, const TorchFeatures &torch)
{
    QString out = QStringLiteral(
        "# Unnamed hints: torch names the symbols and finds equal and derived sizes by tracing\n"
        "# (the same variable in two places does not tie them, the model does). Dim.DYNAMIC\n"
        "# fails the export where torch would specialize; Dim.AUTO would let it. A hint's range\n"
        "# is intersected with what torch traces: a min below 2 reads as 2 in the program.\n");
    bool anyBounds = false;
    for (const QString &name : used)
        anyBounds = anyBounds || (!set.dim(name)->isDerived() && !boundsText(*set.dim(name)).isEmpty());
    if (anyBounds && !torch.hintsTakeBounds().has_value())
        out += QStringLiteral(
            "\n\ndef bounded(hint, **bounds):\n"
            "    # Dim.DYNAMIC(min=..., max=...) needs a torch that takes ranges on hints (2.9 and\n"
            "    # later do, 2.6 does not: there the hint is used bare, with torch's own range).\n"
            "    return hint(**bounds) if callable(hint) else hint\n\n\n");
    for (const QString &name : used)
        out += hintLine(*set.dim(name), torch);
    return out + QLatin1Char('\n') + PythonSpecEmitter::assignment(tree);
}

} // namespace dimscope
