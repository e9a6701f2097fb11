// SPDX-License-Identifier: GPL-3.0-or-later
#include "pt2/pt2reader.h"

#include "pt2/pt2archive.h"
#include "pt2/pt2programparser.h"
#include "util/terminaltext.h"

#include <QRegularExpression>

namespace dimscope {

namespace {

const QString kLegacyJson = QStringLiteral("serialized_exported_program.json");

// Small text records (versions); a missing one is not an error.
QString readSmall(const Pt2Archive &archive, const QString &name)
{
    if (!archive.contains(name))
        return QString();
    QByteArray data;
    QString ignored;
    if (!archive.read(name, &data, &ignored, 4096))
        return QString();
    return QString::fromUtf8(data).trimmed();
}

// Finds the PT2 archive's models: "<root>/models/<name>.json" (torch writes one root
// folder; a root-less archive is accepted too).
bool detectArchive(const QStringList &entries, Pt2Program *p)
{
    static const QRegularExpression model(QStringLiteral("^((?:[^/]+/)?)models/([^/]+)\\.json$"));
    QMap<QString, QStringList> byRoot; // root -> model names
    QStringList roots;
    for (const QString &e : entries) {
        const auto m = model.match(e);
        if (!m.hasMatch())
            continue;
        if (!byRoot.contains(m.captured(1)))
            roots << m.captured(1);
        byRoot[m.captured(1)] << m.captured(2);
    }
    if (roots.isEmpty())
        return false;
    p->layout = Pt2Layout::Archive;
    p->archiveRoot = roots.first();
    QStringList names = byRoot.value(p->archiveRoot);
    names.sort();
    p->modelNames = names;
    p->modelName = names.contains(QStringLiteral("model")) ? QStringLiteral("model") : names.first();
    p->jsonEntry = p->archiveRoot + QStringLiteral("models/") + p->modelName + QStringLiteral(".json");
    return true;
}

} // namespace

std::optional<Pt2Program> Pt2Reader::open(const QString &path, QString *error, const Pt2ReadLimits &limits)
{
    QString ignored;
    if (!error)
        error = &ignored;
    Pt2Archive archive;
    if (!archive.open(path, error))
        return std::nullopt;

    Pt2Program p;
    p.filePath = path;
    const QStringList entries = archive.entries();
    if (entries.contains(kLegacyJson)) {
        p.layout = Pt2Layout::Legacy;
        p.jsonEntry = kLegacyJson;
        p.archiveVersion = readSmall(archive, QStringLiteral("version"));
    } else if (detectArchive(entries, &p)) {
        const QString format = readSmall(archive, p.archiveRoot + QStringLiteral("archive_format"));
        if (!format.isEmpty() && format != QLatin1String("pt2")) {
            *error = QStringLiteral("%1: %2archive_format says %3, expected 'pt2'")
                         .arg(path, TerminalText::field(p.archiveRoot), TerminalText::quoted(format));
            return std::nullopt;
        }
        p.archiveVersion = readSmall(archive, p.archiveRoot + QStringLiteral(".data/version"));
        p.pt2ArchiveVersion = readSmall(archive, p.archiveRoot + QStringLiteral("archive_version"));
    } else {
        QStringList shown;
        for (const QString &entry : entries.mid(0, 8))
            shown << TerminalText::field(entry);
        if (entries.size() > shown.size())
            shown << QStringLiteral("... (%1 in all)").arg(entries.size());
        *error = QStringLiteral("%1: not a torch.export archive: no %2 and no models/<name>.json (records: %3)")
                     .arg(path, kLegacyJson, shown.isEmpty() ? QStringLiteral("none") : shown.join(QLatin1String(", ")));
        return std::nullopt;
    }

    QByteArray json;
    // The record's declared size is checked before anything is inflated.
    if (!archive.read(p.jsonEntry, &json, error, limits.programJsonBytes))
        return std::nullopt;
    QString why;
    if (!Pt2ProgramParser::parse(json, &p, &why, limits.interfaceJsonBytes, limits.interfaceJsonElements)) {
        *error = QStringLiteral("%1: %2: %3").arg(path, p.jsonEntry, why);
        return std::nullopt;
    }
    return p;
}

} // namespace dimscope
