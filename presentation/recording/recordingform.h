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
// `package.module:make` with its tokenizer folder, or the project's model), the inputs
// (prompt boxes, one box one batch, one generate() call, with an image per prompt for
// a vision-language folder and an audio file per prompt for a speech folder; or an
// inputs script `file.py:calls` that runs the model itself), the generation settings
// and where the capture and the project go. error() names the first field that keeps it from recording, as the dialog shows
// it; request() is the worker's `record` request it makes.
class RecordingForm
{
public:
    struct PromptBox {
        QString prompts; // one prompt a line; blank lines are skipped
        QString images;  // a vision-language folder's: one image file a line, one per prompt
        QString audio;   // a speech folder's: one WAV file a line, one per prompt (prompts may
                         // then be left empty: each clip is named by its file name)
    };
    enum class ModelKind { Empty, Folder, File, Module, Invalid };

    QString model;     // as typed; relative paths are against `base`
    QString tokenizer; // a factory's tokenizer folder
    QVector<PromptBox> boxes{PromptBox{}};
    // Record More Calls…: the recording's own generate() calls, recorded again first
    // (boxes number after them), with their images.
    QVector<PromptBox> earlier;
    // Instead of prompt boxes: a function that receives the model and runs it
    // (`file.py:calls`, `package.module:calls`); the boxes and generation settings are
    // then not used. The worker runs it only with the SHA-256 of the content the user
    // agreed to (inputsScriptSha256), for a file.
    bool useInputsScript = false;
    QString inputsScript;
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
    // A folder whose config.json names an audio front end (`num_mel_bins`: Whisper;
    // `input_feat_per_channel`: Speech2Text; model_type speech-encoder-decoder): each
    // prompt takes a WAV file, as the worker's AutoModelForSpeechSeq2Seq does.
    bool isSpeechFolder() const;
    // The inputs script's reference made absolute (`/abs/calls.py:calls`), empty when
    // it is not one.
    QString resolvedInputsScript() const;
    // The script's file (absolute) for a `file.py:function` reference; empty for a
    // module's function, whose file Python finds.
    QString inputsScriptFile() const;
    // Hex SHA-256 of the script file's content, as the consent question shows it and
    // the request sends it; empty with *error when it cannot be read.
    QString inputsScriptSha256(QString *error) const;
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
    QString audioError() const;
    QString inputsScriptError() const;
    // The prompts of a box as the worker gets them: a speech box without prompts names
    // each clip by its file name.
    QString promptsOf(const PromptBox &box) const;
    QString outputsError() const;
};

} // namespace dimscope
