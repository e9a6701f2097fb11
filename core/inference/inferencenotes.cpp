// SPDX-License-Identifier: GPL-3.0-or-later
#include "inference/inferencenotes.h"

#include <QRegularExpression>
#include <QSet>

namespace dimscope {

QHash<QString, QString> InferenceNotes::currentNames(const ConstraintSet &inferred, const ConstraintSet &current)
{
    // Per inferred Dim, how often each current name sits on the dimensions it was
    // inferred on; the most frequent wins (a partly reassigned Dim keeps its majority).
    QHash<QString, QHash<QString, int>> votes;
    for (const LeafConstraint &leaf : inferred.leaves()) {
        for (int d = 0; d < leaf.dims.size(); ++d) {
            const DimAssignment &was = leaf.dims.at(d);
            if (!was.isNamed())
                continue;
            const DimAssignment now = current.assignment(leaf.path, d);
            QHash<QString, int> &tally = votes[was.dim];
            if (now.isNamed())
                ++tally[now.dim];
        }
    }
    QHash<QString, QString> names;
    for (const DimDecl &d : inferred.dims()) {
        const auto it = votes.constFind(d.name);
        if (it == votes.constEnd()) {
            // Used nowhere in the proposal: only its name can tie it to the current set.
            if (current.dim(d.name))
                names.insert(d.name, d.name);
            continue;
        }
        QString best;
        int bestCount = 0;
        for (auto v = it->constBegin(); v != it->constEnd(); ++v) {
            if (v.value() > bestCount || (v.value() == bestCount && v.key() < best)) {
                best = v.key();
                bestCount = v.value();
            }
        }
        if (bestCount > 0)
            names.insert(d.name, best);
    }
    return names;
}

QString InferenceNotes::renameQuoted(const QString &text, const QHash<QString, QString> &names)
{
    // Dim names are identifiers (dimname::whyInvalid), so a quoted identifier is the
    // only form a note gives them.
    static const QRegularExpression quoted(QStringLiteral("'([A-Za-z_][A-Za-z0-9_]*)'"));
    QString out;
    qsizetype from = 0;
    QRegularExpressionMatchIterator it = quoted.globalMatch(text);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        const auto to = names.constFind(m.captured(1));
        if (to == names.constEnd())
            continue;
        out += QStringView(text).mid(from, m.capturedStart(1) - from);
        out += *to;
        from = m.capturedEnd(1);
    }
    out += QStringView(text).mid(from);
    return out;
}

QVector<InferenceMessage> InferenceNotes::inCurrentNames(const InferenceResult &inference, const ConstraintSet &current)
{
    const QHash<QString, QString> names = currentNames(inference.constraints, current);
    QVector<InferenceMessage> out;
    out.reserve(inference.messages.size());
    for (InferenceMessage m : inference.messages) {
        if (!m.dim.isEmpty()) {
            const auto to = names.constFind(m.dim);
            if (to == names.constEnd())
                continue;
            m.dim = *to;
        }
        m.text = renameQuoted(m.text, names);
        out << m;
    }
    return out;
}

QVector<InferenceMessage> InferenceNotes::aboutAutoGroups(const InferenceResult &inference, const ConstraintSet &current)
{
    QSet<QString> groups;
    for (const AutoGroup &g : inference.autoGroups)
        groups.insert(g.name);
    const QHash<QString, QString> names = currentNames(inference.constraints, current);
    QVector<InferenceMessage> out;
    for (InferenceMessage m : inference.messages) {
        if (m.dim.isEmpty() || !groups.contains(m.dim))
            continue;
        m.text = renameQuoted(m.text, names);
        out << m;
    }
    return out;
}

} // namespace dimscope
