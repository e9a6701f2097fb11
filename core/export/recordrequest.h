// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/promptbatches.h"

#include <QJsonObject>
#include <QString>

namespace dimscope {

struct WorkerFailure;

// The parameters of one recording (the worker's `record` request, issue 21 items 2
// and 5): a model folder or factory, prompt batches, the generation settings and the
// capture to write. The CLI sends it through ExportClient::record; the GUI will too.
struct RecordRequest {
    QString model;        // absolute: a Hugging Face folder, /abs/file.py:make, package.module:make
    QString tokenizer;    // a tokenizer folder for a factory model; empty: the model folder's own
    PromptBatches prompts;
    QStringList images;   // one image file per prompt, in the prompts' order; empty: text only
    QStringList audio;    // one WAV file per prompt (a speech model), in the prompts' order
    // A function that runs the model itself (`/abs/file.py:calls`, `package.module:calls`),
    // called as calls(model, processor); when set, prompts, images, audio, maxNewTokens and
    // numBeams are not sent (docs/worker-protocol.md, "Inputs script"). A script is code:
    // set it only to what the user named, or agreed to run (then inputsScriptSha256).
    QString inputsScript;
    // Hex SHA-256 of the script's content the user agreed to; the worker refuses a file
    // that differs. Empty: none sent (the CLI, whose command line names the script).
    QString inputsScriptSha256;
    int maxNewTokens = 8;
    int numBeams = 1;     // 1: greedy
    int calls = 0;        // forward calls to keep; 0: every one
    QString output;       // the capture, written atomically
    bool overwrite = false;
    bool trustRemoteCode = false; // the user's consent to a folder's auto_map code
    // The user's consent to exactly these files of the folder ({file: sha256}, as
    // RemoteCodeFiles lists them; the GUI's question showed them): sent instead of
    // trustRemoteCode when not empty, so a file changed since is refused by the worker.
    QJsonObject remoteCodeConsent;

    QJsonObject toParams() const;
    // The failure's message, with the place of the prompt or batch it names first
    // ("prompts.txt:7: batches[1][0]: 70 tokens + …"): the worker knows batches, the
    // user knows lines.
    QString describe(const WorkerFailure &failure) const;
};

} // namespace dimscope
