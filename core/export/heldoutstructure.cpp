// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/heldoutstructure.h"

#include "capture/capture.h"
#include "capture/capturereader.h"

#include <QFileInfo>
#include <QMap>

#include <algorithm>
#include <QVector>

namespace dimscope {

namespace {

// What a leaf must be to fit: its kind, and for a tensor its rank and dtype.
QString leafShape(const Leaf &leaf)
{
    if (!leaf.isTensor())
        return nodeKindName(leaf.kind);
    return QStringLiteral("a %1 tensor of rank %2").arg(dtype::torchName(leaf.dtype)).arg(leaf.shape.size());
}

using Structure = QMap<QString, QString>; // leaf path -> leafShape, by path (messages name the same leaf every run)

Structure structureOf(const CapturedCall &call)
{
    Structure s;
    for (const Leaf &leaf : call.inputs.leaves)
        s.insert(leaf.path, leafShape(leaf));
    return s;
}

// Why `call` (index `index` of the held-out file) fits none of `recorded`: the first
// leaf no recorded call has, or has so, else the leaf the nearest recorded call has
// and it lacks.
QString whyNoFit(int index, const Structure &call, const QVector<QPair<int, Structure>> &recorded,
                 const QString &recordedName)
{
    for (auto it = call.cbegin(); it != call.cend(); ++it) {
        QString seen;
        bool fits = false;
        for (const auto &entry : recorded) {
            const Structure &s = entry.second;
            if (!s.contains(it.key()))
                continue;
            fits = fits || s.value(it.key()) == it.value();
            seen = s.value(it.key());
        }
        if (seen.isEmpty())
            return QStringLiteral("call %1 has leaf %2, which no call of %3 has").arg(index).arg(it.key(), recordedName);
        if (!fits)
            return QStringLiteral("call %1: leaf %2 is %3, but %4 in %5")
                .arg(index).arg(it.key(), it.value(), seen, recordedName);
    }
    // Every leaf fits some call: the nearest recorded call (the fewest leaves beyond
    // this call's) has a leaf this one lacks.
    int best = -1;
    for (int i = 0; i < recorded.size(); ++i) {
        const Structure &s = recorded.at(i).second;
        const bool covers = std::all_of(call.keyBegin(), call.keyEnd(), [&s](const QString &k) { return s.contains(k); });
        if (covers && (best < 0 || s.size() < recorded.at(best).second.size()))
            best = i;
    }
    for (auto it = recorded.at(std::max(best, 0)).second.cbegin(); it != recorded.at(std::max(best, 0)).second.cend(); ++it)
        if (!call.contains(it.key()))
            return QStringLiteral("call %1 lacks leaf %2, which call %3 of %4 has (and no call of it has exactly this "
                                  "call's leaves)").arg(index).arg(it.key()).arg(recorded.at(std::max(best, 0)).first).arg(recordedName);
    return QStringLiteral("call %1 fits no call of %2").arg(index).arg(recordedName);
}

} // namespace

QString HeldOutStructure::mismatch(const Capture &recorded, const Capture &heldOut)
{
    const QString heldName = QFileInfo(heldOut.filePath).fileName();
    const QString recordedName = QFileInfo(recorded.filePath).fileName();
    if (heldOut.calls.isEmpty())
        return QStringLiteral("%1: the capture has no calls").arg(heldName);
    // Each distinct structure once, with the first call that has it.
    QVector<QPair<int, Structure>> structures;
    for (const CapturedCall &call : recorded.calls) {
        Structure s = structureOf(call);
        if (std::none_of(structures.cbegin(), structures.cend(), [&s](const auto &p) { return p.second == s; }))
            structures.append({call.index, std::move(s)});
    }
    for (const CapturedCall &call : heldOut.calls) {
        const Structure s = structureOf(call);
        if (std::none_of(structures.cbegin(), structures.cend(), [&s](const auto &p) { return p.second == s; }))
            return QStringLiteral("%1: %2").arg(heldName, whyNoFit(call.index, s, structures, recordedName));
    }
    return {};
}

QString HeldOutStructure::fileMismatch(const Capture &recorded, const QString &recordedName, const QString &path)
{
    QString error;
    const std::optional<Capture> heldOut = CaptureReader::open(path, &error);
    if (!heldOut)
        return error;
    const QString why = mismatch(recorded, *heldOut);
    if (why.isEmpty())
        return {};
    return QStringLiteral("%1; its calls cannot be replayed through programs exported from %2").arg(why, recordedName);
}

} // namespace dimscope
