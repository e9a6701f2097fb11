// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/remotecodefiles.h"

#include "util/regularfile.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

namespace dimscope {

namespace {

constexpr qint64 kMaxJsonBytes = 16 * 1024 * 1024;
constexpr qint64 kMaxCodeBytes = 64 * 1024 * 1024; // no modeling file is larger

// Every string among an auto_map's values, however nested ("modeling_x.Model",
// ["tokenization_x.Tok", null], "repo--modeling_x.Model").
void collectStrings(const QJsonValue &value, QStringList *out)
{
    if (value.isString()) {
        out->append(value.toString());
    } else if (value.isArray()) {
        for (const QJsonValue &v : value.toArray())
            collectStrings(v, out);
    } else if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it)
            collectStrings(it.value(), out);
    }
}

// "repo--pkg.modeling_x.Model" → "pkg/modeling_x.py"; empty for a bare class name.
QString fileOf(const QString &entry)
{
    const QString tail = entry.split(QStringLiteral("--")).last();
    const int dot = int(tail.lastIndexOf(QLatin1Char('.')));
    if (dot <= 0)
        return {};
    return tail.left(dot).replace(QLatin1Char('.'), QLatin1Char('/')) + QStringLiteral(".py");
}

QString sha256Of(const QString &path)
{
    QString why;
    const std::optional<QByteArray> bytes = RegularFile::readAll(path, kMaxCodeBytes, &why);
    if (!bytes || bytes->size() > kMaxCodeBytes)
        return {};
    return QString::fromLatin1(QCryptographicHash::hash(*bytes, QCryptographicHash::Sha256).toHex());
}

} // namespace

RemoteCodeFiles RemoteCodeFiles::of(const QString &folder, QString *error)
{
    RemoteCodeFiles out;
    QSet<QString> named;
    const QDir dir(folder);
    for (const QString &name : {QStringLiteral("config.json"), QStringLiteral("tokenizer_config.json")}) {
        const QString path = dir.filePath(name);
        if (!QFileInfo(path).isFile())
            continue;
        QString why;
        const std::optional<QByteArray> bytes = RegularFile::readAll(path, kMaxJsonBytes, &why);
        QJsonParseError parse{};
        const QJsonDocument doc = bytes ? QJsonDocument::fromJson(*bytes, &parse) : QJsonDocument();
        if (!bytes || parse.error != QJsonParseError::NoError || !doc.isObject()) {
            *error = QStringLiteral("%1: %2").arg(path, !bytes ? why : QStringLiteral("not a JSON object"));
            return {};
        }
        const QJsonValue autoMap = doc.object().value(QLatin1String("auto_map"));
        QStringList entries;
        collectStrings(autoMap, &entries);
        // Python's truth test: an empty auto_map asks for nothing.
        if (autoMap.isUndefined() || autoMap.isNull() || (autoMap.isObject() && autoMap.toObject().isEmpty())
            || (autoMap.isArray() && autoMap.toArray().isEmpty()) || (autoMap.isString() && autoMap.toString().isEmpty())
            || (autoMap.isBool() && !autoMap.toBool()))
            continue;
        out.m_sources << path;
        for (const QString &entry : entries) {
            const QString file = fileOf(entry);
            if (!file.isEmpty())
                named.insert(file);
        }
    }
    for (const QString &file : named)
        out.m_files.insert(file, sha256Of(dir.filePath(file)));
    return out;
}

QJsonObject RemoteCodeFiles::consent() const
{
    QJsonObject out;
    for (auto it = m_files.begin(); it != m_files.end(); ++it)
        out.insert(it.key(), it.value().isEmpty() ? QJsonValue() : QJsonValue(it.value()));
    return out;
}

} // namespace dimscope
