// SPDX-License-Identifier: GPL-3.0-or-later
#include "pt2/pt2reader.h"

#include "pt2/pt2archive.h"
#include "pt2/pt2dimrecord.h"
#include "pt2/pt2programparser.h"
#include "util/terminaltext.h"

#include <QRegularExpression>

#include <algorithm>

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

// Names ordered by their text before a trailing number, then by that number.
bool namedNumberLess(const QString &a, const QString &b)
{
    static const QRegularExpression trailing(QStringLiteral("^(.*?)(\\d{1,9})$"));
    const auto ma = trailing.match(a), mb = trailing.match(b);
    const QString pa = ma.hasMatch() ? ma.captured(1) : a, pb = mb.hasMatch() ? mb.captured(1) : b;
    if (pa != pb || !ma.hasMatch() || !mb.hasMatch())
        return pa != pb ? pa < pb : a < b;
    const int na = ma.captured(2).toInt(), nb = mb.captured(2).toInt();
    return na != nb ? na < nb : a < b;
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
    // "model" first (torch.export.load's program), then by name with numbers in order:
    // phase2 before phase10.
    std::sort(names.begin(), names.end(), [](const QString &a, const QString &b) {
        const bool am = a == QLatin1String("model"), bm = b == QLatin1String("model");
        return am != bm ? am : namedNumberLess(a, b);
    });
    p->modelNames = names;
    p->modelName = names.first();
    p->jsonEntry = p->archiveRoot + QStringLiteral("models/") + p->modelName + QStringLiteral(".json");
    return true;
}

// Points `p` at program `model` of its archive; false when it holds none of that name.
bool chooseModel(const QString &model, Pt2Program *p, QString *error)
{
    // A torch 2.5-2.7 file holds one program, which torch.export.load calls "model".
    if (model.isEmpty() || model == p->modelName || (p->layout != Pt2Layout::Archive && model == QLatin1String("model")))
        return true;
    if (p->layout != Pt2Layout::Archive || !p->modelNames.contains(model)) {
        QStringList held;
        for (const QString &n : p->modelNames.isEmpty() ? QStringList{QStringLiteral("model")} : p->modelNames)
            held << TerminalText::field(n);
        *error = QStringLiteral("%1: no program named %2 (the file holds: %3)")
                     .arg(p->filePath, TerminalText::quoted(model), held.join(QLatin1String(", ")));
        return false;
    }
    p->modelName = model;
    p->jsonEntry = p->archiveRoot + QStringLiteral("models/") + model + QStringLiteral(".json");
    return true;
}

} // namespace

std::optional<Pt2Program> Pt2Reader::open(const QString &path, QString *error, const Pt2ReadLimits &limits,
                                          const QString &model)
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

    if (!chooseModel(model, &p, error))
        return std::nullopt;
    QByteArray json;
    // The record's declared size is checked before anything is inflated.
    if (!archive.read(p.jsonEntry, &json, error, limits.programJsonBytes))
        return std::nullopt;
    QString why;
    if (!Pt2ProgramParser::parse(json, &p, &why, limits.interfaceJsonBytes, limits.interfaceJsonElements)) {
        *error = QStringLiteral("%1: %2: %3").arg(path, p.jsonEntry, why);
        return std::nullopt;
    }
    QString warning;
    p.recordedDimNames = Pt2DimRecord::read(archive, p.archiveRoot, p.modelName.isEmpty() ? QStringLiteral("model") : p.modelName,
                                            &warning);
    if (!warning.isEmpty())
        p.warnings << warning;
    return p;
}

QVector<Pt2Program> Pt2Reader::openAll(const QString &path, QString *error, const Pt2ReadLimits &limits)
{
    QVector<Pt2Program> programs;
    std::optional<Pt2Program> first = open(path, error, limits);
    if (!first)
        return programs;
    const QStringList others = first->modelNames.mid(1);
    programs << *first;
    for (const QString &name : others) {
        std::optional<Pt2Program> p = open(path, error, limits, name);
        if (!p)
            return {};
        programs << *p;
    }
    return programs;
}

} // namespace dimscope
