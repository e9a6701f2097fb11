// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QStringList>

namespace dimscope {

// The Python files a Hugging Face folder's `auto_map` (config.json,
// tokenizer_config.json) would make transformers run, each with the SHA-256 of its
// content: what the GUI asks the user about before a recording, and the consent the
// worker's `record` request checks, file for file (docs/worker-protocol.md, "record";
// the worker lists them the same way: recording.remote_code_files). Reads JSON and
// hashes files; runs nothing.
class RemoteCodeFiles
{
public:
    // The folder's files; `sources` is empty when neither JSON file has auto_map. An
    // unreadable or malformed JSON file gives *error naming it (sources then empty).
    static RemoteCodeFiles of(const QString &folder, QString *error);

    bool isEmpty() const { return m_sources.isEmpty(); }
    // The JSON files whose auto_map names code.
    QStringList sources() const { return m_sources; }
    // File name in the folder → hex SHA-256; empty when the file is absent (transformers
    // would look for it elsewhere) or cannot be read.
    QMap<QString, QString> files() const { return m_files; }
    // The request's trust_remote_code for exactly these files ({file: sha256 or null}).
    QJsonObject consent() const;

private:
    QStringList m_sources;
    QMap<QString, QString> m_files;
};

} // namespace dimscope
