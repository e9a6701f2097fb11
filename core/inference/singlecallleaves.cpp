// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/singlecallleaves.h"

#include "util/terminaltext.h"

#include "inference/shapetable.h"

#include <QHash>

namespace dimscope {

QVector<InferenceMessage> singleCallLeafWarnings(const ShapeTable &table)
{
    QVector<InferenceMessage> warnings;
    const int calls = table.callCount();
    if (calls <= 1)
        return warnings; // with one call, every leaf is in a single call: warned about once, elsewhere
    QHash<QString, QStringList> single;
    QHash<QString, int> singleCall;
    for (int li = 0; li < table.leafCount(); ++li) {
        const auto &leaf = table.leaf(li);
        if (leaf.presentCalls != 1 || !leaf.consistent)
            continue;
        single[leaf.arg] << leaf.path;
        for (int c = 0; c < calls; ++c) {
            if (table.present(li, c))
                singleCall[leaf.arg] = c;
        }
    }
    for (const QString &arg : table.args()) {
        if (!single.contains(arg))
            continue;
        const QStringList &leaves = single[arg];
        // Names from the capture: escaped and, when long, elided (docs/security.md).
        const QString what = leaves.size() == 1 ? TerminalText::quoted(leaves.first())
                                                : QStringLiteral("%1 (%2 leaves)").arg(TerminalText::quoted(arg)).arg(leaves.size());
        warnings.append({InferenceMessage::Severity::Warning,
                         QStringLiteral("%1 is seen in a single call (call %2): its dimensions cannot be judged and are "
                                        "proposed static. Capture more calls that pass '%3', or mark its dynamic "
                                        "dimensions by hand")
                             .arg(what)
                             .arg(singleCall[arg])
                             .arg(TerminalText::field(arg)),
                         {},
                         leaves,
                         {singleCall[arg]}});
    }
    return warnings;
}

} // namespace dimscope
