// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/rangeprobes.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QMap>

#include <algorithm>

namespace dimscope {

namespace {

QVector<qint64> sizes(const QJsonValue &v)
{
    QVector<qint64> out;
    for (const QJsonValue &x : v.toArray())
        out << qint64(x.toDouble());
    return out;
}

QJsonArray sizesJson(const QVector<qint64> &v)
{
    QJsonArray a;
    for (qint64 x : v)
        a.append(double(x));
    return a;
}

QString valuesText(const QVector<qint64> &v)
{
    QStringList parts;
    for (qint64 x : v)
        parts << QString::number(x);
    return parts.join(QStringLiteral(", "));
}

RangeProbe probeFromJson(const QJsonObject &o)
{
    RangeProbe p;
    p.dim = o.value(QLatin1String("dim")).toString();
    p.value = qint64(o.value(QLatin1String("value")).toDouble());
    p.call = o.value(QLatin1String("call")).toInt(-1);
    p.status = o.value(QLatin1String("status")).toString();
    p.guard = o.value(QLatin1String("guard")).toString();
    p.message = o.value(QLatin1String("message")).toString();
    if (o.value(QLatin1String("max_abs")).isDouble())
        p.maxAbs = o.value(QLatin1String("max_abs")).toDouble();
    p.movedWith = o.value(QLatin1String("with")).toObject();
    return p;
}

ProbedDim dimFromJson(const QJsonObject &o)
{
    ProbedDim d;
    d.name = o.value(QLatin1String("dim")).toString();
    d.symbol = o.value(QLatin1String("symbol")).toString();
    d.where = o.value(QLatin1String("where")).toString();
    const QJsonArray declared = o.value(QLatin1String("declared")).toArray();
    d.declaredMin = qint64(declared.at(0).toDouble());
    if (declared.at(1).isDouble())
        d.declaredMax = qint64(declared.at(1).toDouble());
    d.recorded = sizes(o.value(QLatin1String("recorded")));
    d.probed = sizes(o.value(QLatin1String("probed")));
    d.served = sizes(o.value(QLatin1String("served")));
    d.rejected = sizes(o.value(QLatin1String("rejected")));
    d.unverified = sizes(o.value(QLatin1String("unverified")));
    d.wrong = sizes(o.value(QLatin1String("wrong")));
    d.cap = qint64(o.value(QLatin1String("cap")).toDouble());
    d.capSource = o.value(QLatin1String("cap_source")).toString();
    d.batchLike = o.value(QLatin1String("batch_like")).toBool();
    d.follows = o.value(QLatin1String("follows")).toString();
    return d;
}

QString dimLine(const ProbedDim &d, const QVector<RangeProbe> &rows)
{
    QVector<qint64> served = d.served + d.recorded;
    std::sort(served.begin(), served.end());
    served.erase(std::unique(served.begin(), served.end()), served.end());
    QStringList parts;
    if (served.size() == 1)
        parts << QStringLiteral("%1 served").arg(served.first());
    else if (!served.isEmpty())
        parts << QStringLiteral("%1..%2 served").arg(served.first()).arg(served.last());
    if (!d.declaredMax && !d.capSource.isEmpty()) {
        // Which cap stopped the probes where the program declares no max (probes.py default_cap).
        const QString cap = QStringLiteral("cap %1: %2").arg(d.cap).arg(d.capSource);
        if (parts.isEmpty())
            parts << cap;
        else
            parts.last() += QStringLiteral(" (%1)").arg(cap);
    }
    QMap<QString, QVector<qint64>> byGuard; // rejected sizes per guard (and the program serving them)
    QStringList guardOrder;
    for (const RangeProbe &p : rows) {
        if (p.status != QLatin1String("rejected"))
            continue;
        QString guard = p.guard.isEmpty() ? p.message : p.guard;
        if (!p.servedBy.isEmpty())
            guard += QStringLiteral("), %1 by program %2").arg(
                p.servedByStatus == QLatin1String("served") ? QStringLiteral("served")
                                                            : QStringLiteral("accepted (%1)").arg(p.servedByStatus),
                p.servedBy);
        else
            guard += QLatin1Char(')');
        if (!byGuard.contains(guard))
            guardOrder << guard;
        byGuard[guard] << p.value;
    }
    for (const QString &g : guardOrder)
        parts << QStringLiteral("%1 rejected (%2").arg(valuesText(byGuard.value(g)), g);
    const QList<QPair<QString, QString>> others{{QStringLiteral("mismatch"), QStringLiteral("WRONG")},
                                                {QStringLiteral("eager_failed"), QStringLiteral("not verified")},
                                                {QStringLiteral("skipped"), QStringLiteral("not probed")}};
    for (const auto &[status, word] : others) {
        QVector<qint64> values;
        QString first;
        for (const RangeProbe &p : rows) {
            if (p.status == status) {
                values << p.value;
                first = first.isEmpty() ? p.message : first;
            }
        }
        if (!values.isEmpty())
            parts << QStringLiteral("%1 %2 (%3)").arg(valuesText(values), word, first.section(QLatin1Char('\n'), 0, 0));
    }
    const QString declared = QStringLiteral("%1..%2").arg(d.declaredMin).arg(
        d.declaredMax ? QString::number(*d.declaredMax) : QStringLiteral("oo"));
    return QStringLiteral("%1 (declared %2): %3")
        .arg(d.name, declared, parts.isEmpty() ? QStringLiteral("nothing probed") : parts.join(QStringLiteral("; ")));
}

} // namespace

QStringList RangeProbes::summaryLines() const
{
    if (!present)
        return {};
    if (!skipped.isEmpty())
        return {skipped};
    QStringList lines;
    for (const ProbedDim &d : dims) {
        QVector<RangeProbe> rows;
        std::copy_if(probes.begin(), probes.end(), std::back_inserter(rows),
                     [&d](const RangeProbe &p) { return p.dim == d.name; });
        lines << dimLine(d, rows);
    }
    return lines;
}

int RangeProbes::count(const QString &status) const
{
    return int(std::count_if(probes.begin(), probes.end(), [&status](const RangeProbe &p) { return p.status == status; }));
}

void RangeProbes::applyElsewhere(const QJsonValue &entries)
{
    for (const QJsonValue &v : entries.toArray()) {
        const QJsonObject o = v.toObject();
        const QString program = o.value(QLatin1String("served_by")).toString();
        for (RangeProbe &p : probes) {
            if (p.status == QLatin1String("rejected") && p.dim == o.value(QLatin1String("dim")).toString()
                && p.value == qint64(o.value(QLatin1String("value")).toDouble())) {
                p.servedBy = program;
                p.servedByStatus = program.isEmpty() ? QString() : o.value(QLatin1String("status")).toString();
            }
        }
    }
}

RangeProbes RangeProbes::fromJson(const QJsonValue &v)
{
    RangeProbes r;
    if (!v.isObject())
        return r;
    const QJsonObject o = v.toObject();
    r.present = true;
    r.skipped = o.value(QLatin1String("skipped")).toString();
    r.seconds = o.value(QLatin1String("seconds")).toDouble();
    for (const QJsonValue &d : o.value(QLatin1String("dims")).toArray())
        r.dims.append(dimFromJson(d.toObject()));
    for (const QJsonValue &p : o.value(QLatin1String("probes")).toArray())
        r.probes.append(probeFromJson(p.toObject()));
    return r;
}

QJsonValue RangeProbes::toJson() const
{
    if (!present)
        return QJsonValue();
    const auto orNull = [](const QString &s) { return s.isEmpty() ? QJsonValue() : QJsonValue(s); };
    QJsonArray dimsJson, probesJson;
    for (const ProbedDim &d : dims)
        dimsJson.append(QJsonObject{{QStringLiteral("dim"), d.name},
                                    {QStringLiteral("symbol"), d.symbol},
                                    {QStringLiteral("where"), orNull(d.where)},
                                    {QStringLiteral("declared"), QJsonArray{double(d.declaredMin),
                                                                            d.declaredMax ? QJsonValue(double(*d.declaredMax)) : QJsonValue()}},
                                    {QStringLiteral("recorded"), sizesJson(d.recorded)},
                                    {QStringLiteral("probed"), sizesJson(d.probed)},
                                    {QStringLiteral("served"), sizesJson(d.served)},
                                    {QStringLiteral("rejected"), sizesJson(d.rejected)},
                                    {QStringLiteral("unverified"), sizesJson(d.unverified)},
                                    {QStringLiteral("wrong"), sizesJson(d.wrong)},
                                    {QStringLiteral("cap"), double(d.cap)},
                                    {QStringLiteral("cap_source"), d.capSource},
                                    {QStringLiteral("batch_like"), d.batchLike},
                                    {QStringLiteral("follows"), orNull(d.follows)}});
    for (const RangeProbe &p : probes)
        probesJson.append(QJsonObject{{QStringLiteral("dim"), p.dim},
                                      {QStringLiteral("value"), double(p.value)},
                                      {QStringLiteral("call"), p.call},
                                      {QStringLiteral("status"), p.status},
                                      {QStringLiteral("guard"), orNull(p.guard)},
                                      {QStringLiteral("message"), orNull(p.message)},
                                      {QStringLiteral("max_abs"), p.maxAbs ? QJsonValue(*p.maxAbs) : QJsonValue()},
                                      {QStringLiteral("with"), p.movedWith.isEmpty() ? QJsonValue() : QJsonValue(p.movedWith)},
                                      {QStringLiteral("served_by"), orNull(p.servedBy)},
                                      {QStringLiteral("served_by_status"), orNull(p.servedByStatus)}});
    return QJsonObject{{QStringLiteral("skipped"), orNull(skipped)},
                       {QStringLiteral("seconds"), seconds},
                       {QStringLiteral("lines"), QJsonArray::fromStringList(summaryLines())},
                       {QStringLiteral("dims"), dimsJson},
                       {QStringLiteral("probes"), probesJson}};
}

} // namespace dimscope
