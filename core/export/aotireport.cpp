// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/aotireport.h"

#include <QJsonArray>

namespace dimscope {

namespace {

int count(const QJsonArray &rows, const QString &status)
{
    int n = 0;
    for (const QJsonValue &row : rows)
        n += row.toObject().value(QLatin1String("status")).toString() == status ? 1 : 0;
    return n;
}

} // namespace

QString AotiReport::rowLabel(const QJsonObject &row)
{
    const QString kind = row.value(QLatin1String("kind")).toString();
    if (kind == QLatin1String("probe"))
        return QStringLiteral("probe ") + row.value(QLatin1String("probe")).toString();
    return (kind == QLatin1String("held_out") ? QStringLiteral("held-out call %1") : QStringLiteral("call %1"))
        .arg(row.value(QLatin1String("call")).toInt());
}

QStringList AotiReport::programLines(const QJsonObject &program, const QString &device)
{
    const QJsonArray rows = program.value(QLatin1String("calls")).toArray();
    const QJsonValue seconds = program.value(QLatin1String("compile_seconds"));
    QStringList out;
    out << QStringLiteral("program %1 -> %2 (%3)")
               .arg(program.value(QLatin1String("name")).toString(), program.value(QLatin1String("package")).toString(),
                    seconds.isDouble() ? QStringLiteral("compiled in %1 s on %2").arg(seconds.toDouble(), 0, 'f', 1).arg(device)
                                       : QStringLiteral("given, not compiled"));
    out << QStringLiteral("  %1 call(s) and probe(s) served by the program: %2 match the package, %3 differ, "
                          "%4 rejected by the package; %5 rejected by both")
               .arg(program.value(QLatin1String("served")).toInt())
               .arg(count(rows, QStringLiteral("match")))
               .arg(count(rows, QStringLiteral("differs")))
               .arg(count(rows, QStringLiteral("package_rejects")))
               .arg(count(rows, QStringLiteral("guard_kept")));
    for (const QJsonValue &v : rows) {
        const QJsonObject row = v.toObject();
        const QString status = row.value(QLatin1String("status")).toString();
        if (status == QLatin1String("lost_guard"))
            out << QStringLiteral("  LOST GUARD %1: %2").arg(rowLabel(row), row.value(QLatin1String("message")).toString());
        else if (status == QLatin1String("differs") || status == QLatin1String("package_rejects"))
            out << QStringLiteral("  DIFFERS %1: %2")
                       .arg(rowLabel(row), status == QLatin1String("differs")
                                               ? row.value(QLatin1String("message")).toString()
                                               : QStringLiteral("the package fails on it: ")
                                                     + row.value(QLatin1String("package_message")).toString());
    }
    return out;
}

QStringList AotiReport::lines(const QJsonObject &result)
{
    QStringList out;
    const QString device = result.value(QLatin1String("device")).toString();
    for (const QJsonValue &program : result.value(QLatin1String("programs")).toArray())
        out << programLines(program.toObject(), device);
    const int lost = result.value(QLatin1String("lost_guards")).toInt();
    QString summary = QStringLiteral("aoti: %1 call(s) differ from the program, %2 lost guard(s); replayed in a new "
                                     "interpreter in %3 s (torch %4)")
                          .arg(result.value(QLatin1String("differs")).toInt())
                          .arg(lost)
                          .arg(result.value(QLatin1String("replay_seconds")).toDouble(), 0, 'f', 1)
                          .arg(result.value(QLatin1String("torch")).toString());
    out << summary;
    if (lost > 0 && !result.value(QLatin1String("check_inputs")).toBool())
        out << QStringLiteral("  the packages ran without AOTI_RUNTIME_CHECK_INPUTS=1, as a process does by default: "
                              "with it set they check their inputs (--check-inputs replays them so)");
    return out;
}

bool AotiReport::clean(const QJsonObject &result)
{
    return result.value(QLatin1String("differs")).toInt() == 0 && result.value(QLatin1String("lost_guards")).toInt() == 0;
}

} // namespace dimscope
