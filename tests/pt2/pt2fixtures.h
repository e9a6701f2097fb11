// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QPair>
#include <QString>
#include <QVector>

// Zip fixtures for the pt2 suites, written and read with libzip.
namespace pt2fixtures {

using Records = QVector<QPair<QString, QByteArray>>;

QString samplePath(); // tests/fixtures/torch-2.6/llm-like-cache.pt2 (written by torch 2.6)
// store = true writes records uncompressed (so tests can damage their bytes).
bool writeZip(const QString &path, const Records &records, bool store = false);
Records readZip(const QString &path); // empty on failure
QByteArray record(const Records &records, const QString &name);

// Re-packs a torch 2.5-2.7 archive into the torch 2.8+ PT2 archive layout, as
// torch.export.save writes it from 2.8 on (torch/export/pt2_archive, read in the
// pytorch sources; torch 2.6 here cannot write it):
//   <root>/archive_format ("pt2"), <root>/archive_version ("0"), <root>/byteorder,
//   <root>/.data/version, <root>/models/<model>.json (the same ExportedProgram JSON),
//   <root>/data/sample_inputs/<model>.pt, <root>/data/weights/<model>_weights_config.json,
//   <root>/data/constants/<model>_constants_config.json.
// extraModels adds more models/<name>.json records with the same JSON.
bool repackAsArchive(const QString &legacyPath, const QString &outPath, const QString &root = QStringLiteral("archive"),
                     const QString &model = QStringLiteral("model"), const QStringList &extraModels = {});

} // namespace pt2fixtures
