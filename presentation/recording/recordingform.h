// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/recordrequest.h"

#include <QDir>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace dimscope {

// What File > New Recording… and Record More Calls… hold, without a widget (issue 21
// item 1): the model (a Hugging Face folder, a factory `file.py:make` /
// `package.module:make` with its tokenizer folder, or the project's model), the prompt
// boxes (one box one batch, one generate() call; for a vision-language folder an
// image per prompt), the generation settings and where the capture and the project
// go. error() names the first field that keeps it from recording, as the dialog shows
// it; request() is the worker's `record` request it makes.
class RecordingForm
{
public:
    struct PromptBox {
        QString prompts; // one prompt a line; blank lines are skipped
        QString images;  // a vision-language folder's: one image file a line, one per prompt
    };
    enum class ModelKind { Empty, Folder, File, Module, Invalid };

    QString model;     // as typed; relative paths are against `base`
    QString tokenizer; // a factory's tokenizer folder
    QVector<PromptBox> boxes{PromptBox{}};
    // Record More Calls…: the recording's own generate() calls, recorded again first
    // (boxes number after them), with their images.
    QVector<PromptBox> earlier;
    int maxNewTokens = 8;
    bool beamSearch = false;
    int numBeams = 2;
    int calls = 0; // forward calls to keep; 0: every one
    QString capturePath;
    QString projectPath;
    QDir base = QDir::current();

    ModelKind modelKind(QString *why = nullptr) const;
    // The reference the worker gets (absolute), or empty when the model is not usable.
    QString resolvedModel() const;
    // A folder whose config.json has a vision_config: each prompt takes an image.
    bool isVisionFolder() const;
    // The first problem, naming the field ("Prompt box 2 is empty …"); empty when the
    // form can record.
    QString error() const;
    // The outputs that exist (the dialog asks before replacing them).
    QStringList existingOutputs() const;
    // The request (output absolute, overwrite false); nullopt with *error as error().
    std::optional<RecordRequest> request(QString *error) const;

    // Beside the model (a folder's or a file's folder, else `base`), named after it:
    // "tiny-llama.safetensors" and "tiny-llama.dimscope", "tiny-llama-2…" when either
    // exists.
    void setDefaultOutputs();
    // The capture and project named `stem` (then stem-2, stem-3, …) in `dir` that do
    // not exist yet.
    void setUnusedOutputs(const QDir &dir, const QString &stem);
    // Record More Calls…: the form of the capture's `recording` metadata, its calls
    // recorded again before the new boxes; outputs beside `capturePath`, unused.
    static RecordingForm moreCalls(const QJsonObject &recording, const QString &capturePath);

private:
    QString promptsError() const;
    QString imagesError() const;
    QString outputsError() const;
};

} // namespace dimscope
