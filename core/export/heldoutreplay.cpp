// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/heldoutreplay.h"

#include "export/exportphases.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QMap>

namespace dimscope {

namespace {

HeldOutCall callFromJson(const QJsonObject &o)
{
    HeldOutCall c;
    c.call = o.value(QLatin1String("call")).toInt();
    c.status = o.value(QLatin1String("status")).toString();
    c.program = o.value(QLatin1String("program")).toString();
    if (o.value(QLatin1String("max_abs")).isDouble())
        c.maxAbs = o.value(QLatin1String("max_abs")).toDouble();
    c.message = o.value(QLatin1String("message")).toString();
    for (const QJsonValue &r : o.value(QLatin1String("rejections")).toArray()) {
        const QJsonObject ro = r.toObject();
        c.rejections.append({ro.value(QLatin1String("program")).toString(), ro.value(QLatin1String("guard")).toString(),
                             ro.value(QLatin1String("message")).toString()});
    }
    return c;
}

QJsonObject callToJson(const HeldOutCall &c)
{
    QJsonArray rejections;
    for (const HeldOutCall::Rejection &r : c.rejections)
        rejections.append(QJsonObject{{QStringLiteral("program"), r.program}, {QStringLiteral("guard"), r.guard},
                                      {QStringLiteral("message"), r.message}});
    const auto orNull = [](const QString &s) { return s.isEmpty() ? QJsonValue() : QJsonValue(s); };
    return QJsonObject{{QStringLiteral("call"), c.call},
                       {QStringLiteral("status"), c.status},
                       {QStringLiteral("program"), orNull(c.program)},
                       {QStringLiteral("max_abs"), c.maxAbs ? QJsonValue(*c.maxAbs) : QJsonValue()},
                       {QStringLiteral("message"), orNull(c.message)},
                       {QStringLiteral("rejections"), rejections}};
}

// "model: input_ids.size()[1] <= 7; phase2: input_ids.size()[1] == 1"
QString guardsText(const HeldOutCall &c)
{
    QStringList parts;
    for (const HeldOutCall::Rejection &r : c.rejections)
        parts << QStringLiteral("%1: %2").arg(r.program, r.guard);
    return parts.join(QStringLiteral("; "));
}

QString callsWord(const QVector<int> &calls)
{
    return QStringLiteral("%1 %2").arg(calls.size() == 1 ? QStringLiteral("call") : QStringLiteral("calls"),
                                       ExportPhases::callsText(calls));
}

} // namespace

QVector<int> HeldOutReplay::wrongCalls() const
{
    QVector<int> out;
    for (const HeldOutCall &c : calls)
        if (c.status == QLatin1String("wrong"))
            out << c.call;
    return out;
}

int HeldOutReplay::servedCount() const
{
    int n = 0;
    for (const HeldOutCall &c : calls)
        n += c.status == QLatin1String("served") ? 1 : 0;
    return n;
}

QStringList HeldOutReplay::summaryLines() const
{
    if (isEmpty())
        return {};
    const QString head = QStringLiteral("held-out %1: ").arg(QFileInfo(file).fileName());
    if (!skipped.isEmpty())
        return {head + QStringLiteral("not replayed: ") + skipped};
    QMap<QString, QVector<int>> byProgram;      // served calls per program
    QMap<QString, QVector<int>> byGuards;       // rejected calls per guard text
    QMap<QString, QVector<int>> unverified;     // eager_failed / rebuilt_differs per message
    QVector<int> served;
    for (const HeldOutCall &c : calls) {
        if (c.status == QLatin1String("served")) {
            served << c.call;
            byProgram[c.program] << c.call;
        } else if (c.status == QLatin1String("rejected")) {
            byGuards[guardsText(c)] << c.call;
        } else if (c.status != QLatin1String("wrong")) {
            unverified[QStringLiteral("%1: %2").arg(c.status, c.message)] << c.call;
        }
    }
    QString servedText = served.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(callsWord(served));
    if (byProgram.size() > 1 || (byProgram.size() == 1 && programs.size() > 1)) {
        QStringList parts;
        for (const QString &program : programs)
            if (byProgram.contains(program))
                parts << QStringLiteral("%1 by %2").arg(callsWord(byProgram.value(program)), program);
        servedText = QStringLiteral(" (%1)").arg(parts.join(QStringLiteral(", ")));
    }
    QStringList lines{head + QStringLiteral("%1 of %2 calls served%3").arg(served.size()).arg(calls.size()).arg(servedText)};
    for (auto it = byGuards.cbegin(); it != byGuards.cend(); ++it)
        lines << head + QStringLiteral("%1 rejected by every program: %2").arg(callsWord(it.value()), it.key());
    for (auto it = unverified.cbegin(); it != unverified.cend(); ++it)
        lines << head + QStringLiteral("%1 not verified: %2").arg(callsWord(it.value()), it.key());
    return lines;
}

QStringList HeldOutReplay::wrongLines() const
{
    QStringList lines;
    for (const HeldOutCall &c : calls) {
        if (c.status == QLatin1String("wrong"))
            lines << QStringLiteral("held-out %1: call %2 WRONG: %3").arg(QFileInfo(file).fileName()).arg(c.call).arg(c.message);
    }
    return lines;
}

HeldOutReplay HeldOutReplay::fromJson(const QJsonValue &v)
{
    HeldOutReplay r;
    const QJsonObject o = v.toObject();
    r.file = o.value(QLatin1String("file")).toString();
    for (const QJsonValue &p : o.value(QLatin1String("programs")).toArray())
        r.programs << p.toString();
    for (const QJsonValue &c : o.value(QLatin1String("calls")).toArray())
        r.calls.append(callFromJson(c.toObject()));
    return r;
}

QJsonValue HeldOutReplay::toJson() const
{
    if (isEmpty())
        return QJsonValue();
    QJsonArray callsJson;
    for (const HeldOutCall &c : calls)
        callsJson.append(callToJson(c));
    return QJsonObject{{QStringLiteral("file"), file},
                       {QStringLiteral("replayed"), replayed()},
                       {QStringLiteral("skipped"), skipped.isEmpty() ? QJsonValue() : QJsonValue(skipped)},
                       {QStringLiteral("programs"), QJsonArray::fromStringList(programs)},
                       {QStringLiteral("served"), servedCount()},
                       {QStringLiteral("wrong"), int(wrongCalls().size())},
                       {QStringLiteral("calls"), callsJson}};
}

} // namespace dimscope
