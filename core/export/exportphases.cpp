// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/exportphases.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QMap>
#include <QSet>
#include <QStringList>

namespace dimscope {

namespace {

// path -> shape of every tensor leaf of one call
QMap<QString, QVector<qint64>> tensorShapes(const CapturedCall &call)
{
    QMap<QString, QVector<qint64>> out;
    for (const Leaf &l : call.inputs.leaves) {
        if (l.isTensor())
            out.insert(l.path, l.shape);
    }
    return out;
}

QString structureKey(const QMap<QString, QVector<qint64>> &shapes)
{
    QStringList parts;
    for (auto it = shapes.begin(); it != shapes.end(); ++it)
        parts << it.key() + QLatin1Char('/') + QString::number(it.value().size());
    return parts.join(QLatin1Char('|'));
}

int sizeClass(qint64 v) { return v <= 0 ? 0 : (v == 1 ? 1 : 2); }

// (path, dim) -> the sizes in each of `calls` (-1 where absent)
QMap<QPair<QString, int>, QVector<qint64>> dimValues(const Capture &capture, const QVector<int> &calls)
{
    QMap<QPair<QString, int>, QVector<qint64>> out;
    for (int i = 0; i < calls.size(); ++i) {
        const auto shapes = tensorShapes(capture.calls.at(calls[i]));
        for (auto it = shapes.begin(); it != shapes.end(); ++it) {
            for (int d = 0; d < it.value().size(); ++d) {
                auto &values = out[{it.key(), d}];
                values.resize(calls.size(), -1);
                values[i] = it.value()[d];
            }
        }
    }
    return out;
}

bool varies(const QVector<qint64> &values)
{
    qint64 first = -1;
    for (qint64 v : values) {
        if (v < 0)
            continue;
        if (first < 0)
            first = v;
        else if (v != first)
            return true;
    }
    return false;
}

} // namespace

Capture ExportPhases::subset(const Capture &capture, const QVector<int> &calls)
{
    Capture sub = capture;
    sub.calls.clear();
    for (int c : calls) {
        CapturedCall call = capture.calls.at(c);
        call.index = int(sub.calls.size());
        sub.calls << call;
    }
    return sub;
}

QVector<QVector<int>> ExportPhases::split(const Capture &capture, const QVector<int> &calls)
{
    const auto values = dimValues(capture, calls);
    QVector<QPair<QString, int>> varying;
    for (auto it = values.begin(); it != values.end(); ++it) {
        if (varies(it.value()))
            varying << it.key();
    }
    QVector<QVector<int>> groups;
    QHash<QString, int> byKey;
    for (int i = 0; i < calls.size(); ++i) {
        const auto shapes = tensorShapes(capture.calls.at(calls[i]));
        QString key = structureKey(shapes);
        for (const auto &pd : varying) {
            const qint64 v = values.value(pd).value(i, -1);
            key += QLatin1Char(';') + (v < 0 ? QStringLiteral("-") : QString::number(sizeClass(v)));
        }
        auto it = byKey.find(key);
        if (it == byKey.end()) {
            it = byKey.insert(key, int(groups.size()));
            groups.append(QVector<int>());
        }
        groups[*it] << calls[i];
    }
    return groups;
}

QString ExportPhases::describe(const Capture &capture, const QVector<int> &calls, int limit)
{
    QVector<int> all;
    for (int c = 0; c < capture.calls.size(); ++c)
        all << c;
    const auto overall = dimValues(capture, all);
    const auto here = dimValues(capture, calls);
    QStringList parts;
    QSet<QString> seenValues; // one mention per "value pattern" keeps it short
    for (auto it = here.begin(); it != here.end() && parts.size() < limit; ++it) {
        if (varies(it.value()) || !varies(overall.value(it.key())))
            continue;
        qint64 v = -1;
        for (qint64 x : it.value())
            v = x >= 0 ? x : v;
        const QString pattern = QString::number(it.key().second) + QLatin1Char('=') + QString::number(v);
        if (seenValues.contains(pattern))
            continue;
        seenValues.insert(pattern);
        parts << QStringLiteral("%1 dim %2 = %3").arg(it.key().first).arg(it.key().second).arg(v);
    }
    // Inputs only these calls pass (a vision-language model's images).
    QSet<QString> inOthers, inThese;
    for (int c = 0; c < capture.calls.size(); ++c) {
        for (const Leaf &l : capture.calls.at(c).inputs.leaves)
            (calls.contains(c) ? inThese : inOthers).insert(l.path);
    }
    QStringList only;
    for (const QString &p : std::as_const(inThese)) {
        if (!inOthers.contains(p))
            only << p;
    }
    only.sort();
    if (!only.isEmpty())
        parts.prepend(QStringLiteral("with %1").arg(only.mid(0, limit).join(QStringLiteral(", "))));
    return parts.isEmpty() ? QStringLiteral("calls %1").arg(callsText(calls)) : parts.join(QStringLiteral(", "));
}

QString ExportPhases::callsText(const QVector<int> &calls)
{
    QStringList parts;
    for (int i = 0; i < calls.size();) {
        int j = i;
        while (j + 1 < calls.size() && calls[j + 1] == calls[j] + 1)
            ++j;
        parts << (j > i ? QStringLiteral("%1-%2").arg(calls[i]).arg(calls[j]) : QString::number(calls[i]));
        i = j + 1;
    }
    return parts.join(QStringLiteral(", "));
}

QString ExportPhases::outputPath(const QString &output, int phase)
{
    if (phase <= 1)
        return output;
    const QFileInfo fi(output);
    QString base = fi.fileName();
    if (base.endsWith(QLatin1String(".pt2")))
        base.chop(4);
    return fi.dir().filePath(QStringLiteral("%1.phase%2.pt2").arg(base).arg(phase));
}

} // namespace dimscope
