// SPDX-License-Identifier: GPL-3.0-or-later
#include "pt2/pt2dimrecord.h"

#include "pt2/pt2archive.h"
#include "util/terminaltext.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

namespace dimscope {

const QString Pt2DimRecord::kFileName = QStringLiteral("dimscope_dims.json");

namespace {

const QString kFormat = QStringLiteral("dimscope.pt2_dims");

// torch's symbols (s0, s23, u4) and Dim names (Python identifiers): nothing else is
// shown in place of a symbol, so a record cannot put markup or control text in a view.
bool isIdentifier(const QString &s)
{
    static const QRegularExpression identifier(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]{0,127}$"));
    return identifier.match(s).hasMatch();
}

} // namespace

QMap<QString, QString> Pt2DimRecord::read(const Pt2Archive &archive, const QString &root, const QString &program,
                                          QString *warning)
{
    // torch 2.8+: <root>/extra/NAME; torch 2.6's flat records: extra_files/NAME.
    const QStringList places{root + QStringLiteral("extra/") + kFileName, QStringLiteral("extra/") + kFileName,
                             QStringLiteral("extra_files/") + kFileName};
    for (const QString &place : places) {
        if (!archive.contains(place))
            continue;
        QByteArray json;
        QString error;
        if (!archive.read(place, &json, &error, kMaxBytes)) {
            if (warning)
                *warning = error;
            return {};
        }
        QString why;
        QMap<QString, QString> names = parse(json, program, &why);
        if (!why.isEmpty() && warning)
            *warning = QStringLiteral("%1: %2 (the symbols keep torch's names)").arg(place, why);
        return names;
    }
    return {};
}

QMap<QString, QString> Pt2DimRecord::parse(const QByteArray &json, const QString &program, QString *warning)
{
    const auto fail = [warning](const QString &why) {
        if (warning)
            *warning = why;
        return QMap<QString, QString>();
    };
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return fail(QStringLiteral("bad JSON at byte %1: %2").arg(parseError.offset).arg(parseError.errorString()));
    const QJsonObject top = doc.object();
    if (!doc.isObject() || top.value(QStringLiteral("format")).toString() != kFormat)
        return fail(QStringLiteral("format: expected '%1'").arg(kFormat));
    if (top.value(QStringLiteral("version")).toInt() != 1)
        return fail(QStringLiteral("version: only 1 is known"));
    const QJsonValue entry = top.value(QStringLiteral("programs")).toObject().value(program);
    if (entry.isUndefined())
        return {}; // a program exported without names (none of its symbols had a Dim)
    const QJsonValue symbols = entry.toObject().value(QStringLiteral("symbols"));
    if (!symbols.isObject())
        return fail(QStringLiteral("programs.%1.symbols: expected an object").arg(program));
    QMap<QString, QString> names;
    const QJsonObject map = symbols.toObject();
    for (auto it = map.begin(); it != map.end(); ++it) {
        const QString name = it.value().toString();
        if (!isIdentifier(it.key()) || !isIdentifier(name))
            return fail(QStringLiteral("programs.%1.symbols: %2: %3 is not a symbol and a Dim name")
                            .arg(program, TerminalText::quoted(it.key()), TerminalText::quoted(name)));
        names.insert(it.key(), name);
    }
    return names;
}

} // namespace dimscope
