// SPDX-License-Identifier: GPL-3.0-or-later
#include "recording/recordingform.h"

#include "project/modelreference.h"
#include "util/regularfile.h"

#include <QCryptographicHash>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

namespace dimscope {

namespace {

QStringList nonBlankLines(const QString &text)
{
    QStringList out;
    for (QString line : text.split(QLatin1Char('\n'))) {
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
        if (!line.trimmed().isEmpty())
            out << line;
    }
    return out;
}

QJsonObject readConfig(const QString &folder)
{
    QString why;
    const std::optional<QByteArray> bytes = RegularFile::readAll(QDir(folder).filePath(QStringLiteral("config.json")),
                                                                 16 * 1024 * 1024, &why);
    return bytes ? QJsonDocument::fromJson(*bytes).object() : QJsonObject();
}

// Whether a box's files (one a line) match its prompts and exist; the error names the
// box, the file's place and `what` ("image", "audio file").
QString filesError(qsizetype box, const QStringList &prompts, const QStringList &files, const QString &what,
                   const QString &why, const QDir &base)
{
    if (files.size() != prompts.size())
        return QStringLiteral("Prompt box %1: %2 prompt(s) and %3 %4(s): %5")
            .arg(box + 1)
            .arg(prompts.size())
            .arg(files.size())
            .arg(what, why);
    for (qsizetype i = 0; i < files.size(); ++i) {
        const QFileInfo file(base, files.at(i).trimmed());
        if (!file.isFile())
            return QStringLiteral("Prompt box %1: %2 %3 %4 does not exist").arg(box + 1).arg(what).arg(i + 1).arg(file.absoluteFilePath());
    }
    return {};
}

QStringList absolutePaths(const QString &lines, const QDir &base)
{
    QStringList out;
    for (const QString &line : nonBlankLines(lines))
        out << QFileInfo(base, line.trimmed()).absoluteFilePath();
    return out;
}

} // namespace

RecordingForm::ModelKind RecordingForm::modelKind(QString *why) const
{
    QString error;
    if (model.trimmed().isEmpty()) {
        error = QStringLiteral("Model: choose a Hugging Face model folder or give a factory (file.py:make, "
                               "package.module:make)");
        if (why)
            *why = error;
        return ModelKind::Empty;
    }
    const std::optional<ModelReference> ref = ModelReference::resolve(model.trimmed(), base, &error);
    ModelKind kind = ModelKind::Invalid;
    if (ref && ref->kind() == ModelReference::Kind::Folder) {
        if (!QFileInfo(QDir(ref->path()).filePath(QStringLiteral("config.json"))).isFile())
            error = QStringLiteral("Model: %1 has no config.json: not a Hugging Face model folder").arg(ref->path());
        else
            kind = ModelKind::Folder;
    } else if (ref && ref->kind() == ModelReference::Kind::File) {
        if (!QFileInfo(ref->path()).isFile())
            error = QStringLiteral("Model: no such file %1").arg(ref->path());
        else
            kind = ModelKind::File;
    } else if (ref) {
        kind = ModelKind::Module;
    } else {
        error = QStringLiteral("Model: %1").arg(error);
    }
    if (why)
        *why = kind == ModelKind::Invalid ? error : QString();
    return kind;
}

QString RecordingForm::resolvedModel() const
{
    const ModelKind kind = modelKind();
    if (kind == ModelKind::Empty || kind == ModelKind::Invalid)
        return {};
    QString error;
    return ModelReference::resolve(model.trimmed(), base, &error)->text();
}

bool RecordingForm::isVisionFolder() const
{
    return modelKind() == ModelKind::Folder && readConfig(resolvedModel()).contains(QLatin1String("vision_config"));
}

bool RecordingForm::isSpeechFolder() const
{
    if (modelKind() != ModelKind::Folder)
        return false;
    const QJsonObject config = readConfig(resolvedModel());
    return config.contains(QLatin1String("num_mel_bins")) || config.contains(QLatin1String("input_feat_per_channel"))
           || config.value(QLatin1String("model_type")).toString() == QLatin1String("speech-encoder-decoder");
}

QString RecordingForm::promptsOf(const PromptBox &box) const
{
    if (nonBlankLines(box.prompts).isEmpty() && isSpeechFolder()) {
        QStringList names;
        for (const QString &clip : nonBlankLines(box.audio))
            names << QFileInfo(clip.trimmed()).fileName();
        return names.join(QLatin1Char('\n'));
    }
    return box.prompts;
}

QString RecordingForm::resolvedInputsScript() const
{
    QString error;
    const std::optional<ModelReference> ref = ModelReference::resolve(inputsScript.trimmed(), base, &error);
    return ref && ref->kind() != ModelReference::Kind::Folder ? ref->text() : QString();
}

QString RecordingForm::inputsScriptFile() const
{
    QString error;
    const std::optional<ModelReference> ref = ModelReference::resolve(inputsScript.trimmed(), base, &error);
    return ref && ref->kind() == ModelReference::Kind::File ? ref->path() : QString();
}

QString RecordingForm::inputsScriptSha256(QString *error) const
{
    const std::optional<QByteArray> bytes = RegularFile::readAll(inputsScriptFile(), 16 * 1024 * 1024, error);
    return bytes ? QString::fromLatin1(QCryptographicHash::hash(*bytes, QCryptographicHash::Sha256).toHex()) : QString();
}

QString RecordingForm::inputsScriptError() const
{
    if (inputsScript.trimmed().isEmpty())
        return QStringLiteral("Inputs script: give the function that runs the model (file.py:calls, package.module:calls)");
    QString error;
    const std::optional<ModelReference> ref = ModelReference::resolve(inputsScript.trimmed(), base, &error);
    if (!ref)
        return QStringLiteral("Inputs script: %1").arg(error);
    if (ref->kind() == ModelReference::Kind::Folder)
        return QStringLiteral("Inputs script: %1 is a folder; give file.py:function or package.module:function").arg(ref->path());
    if (ref->kind() == ModelReference::Kind::File && !QFileInfo(ref->path()).isFile())
        return QStringLiteral("Inputs script: no such file %1").arg(ref->path());
    return {};
}

QString RecordingForm::promptsError() const
{
    QStringList texts;
    for (const PromptBox &box : earlier + boxes)
        texts << promptsOf(box);
    QString error;
    if (!PromptBatches::fromBoxes(texts, &error))
        return error.left(1).toUpper() + error.mid(1);
    return {};
}

QString RecordingForm::imagesError() const
{
    if (!isVisionFolder())
        return {};
    const QVector<PromptBox> all = earlier + boxes;
    for (qsizetype b = 0; b < all.size(); ++b) {
        if (const QString e = filesError(b, nonBlankLines(all.at(b).prompts), nonBlankLines(all.at(b).images), QStringLiteral("image"),
                                         QStringLiteral("a vision-language model takes one image per prompt (Add Image…)"), base);
            !e.isEmpty())
            return e;
    }
    return {};
}

QString RecordingForm::audioError() const
{
    if (!isSpeechFolder())
        return {};
    const QVector<PromptBox> all = earlier + boxes;
    for (qsizetype b = 0; b < all.size(); ++b) {
        if (const QString e = filesError(b, nonBlankLines(promptsOf(all.at(b))), nonBlankLines(all.at(b).audio),
                                         QStringLiteral("audio file"),
                                         QStringLiteral("a speech model takes one WAV file per prompt (Add Audio…)"), base);
            !e.isEmpty())
            return e;
    }
    return {};
}

QString RecordingForm::outputsError() const
{
    if (capturePath.trimmed().isEmpty())
        return QStringLiteral("Capture: choose where the capture goes");
    if (projectPath.trimmed().isEmpty())
        return QStringLiteral("Project: choose where the .dimscope project goes");
    const QFileInfo capture(base, capturePath.trimmed());
    const QFileInfo project(base, projectPath.trimmed());
    if (capture.absoluteFilePath() == project.absoluteFilePath())
        return QStringLiteral("Capture and Project are the same file %1").arg(capture.absoluteFilePath());
    for (const QFileInfo &out : {capture, project}) {
        if (out.exists() && !out.isFile())
            return QStringLiteral("%1 exists and is not a regular file").arg(out.absoluteFilePath());
        const QFileInfo folder(out.absolutePath());
        if (!folder.isDir() || !folder.isWritable())
            return QStringLiteral("%1: the folder does not exist or is not writable").arg(out.absoluteFilePath());
    }
    return {};
}

QString RecordingForm::error() const
{
    QString why;
    const ModelKind kind = modelKind(&why);
    if (kind == ModelKind::Empty || kind == ModelKind::Invalid)
        return why;
    if (useInputsScript) { // the script runs the model: no prompts, no generation settings
        if (const QString e = inputsScriptError(); !e.isEmpty())
            return e;
        return outputsError();
    }
    if (kind != ModelKind::Folder && tokenizer.trimmed().isEmpty())
        return QStringLiteral("Tokenizer: a factory model needs a tokenizer folder");
    if (const QString e = promptsError(); !e.isEmpty())
        return e;
    if (const QString e = imagesError(); !e.isEmpty())
        return e;
    if (const QString e = audioError(); !e.isEmpty())
        return e;
    if (maxNewTokens < 1)
        return QStringLiteral("Max new tokens: at least 1");
    if (beamSearch && numBeams < 2)
        return QStringLiteral("Beams: beam search takes 2 beams or more");
    return outputsError();
}

QStringList RecordingForm::existingOutputs() const
{
    QStringList out;
    for (const QString &path : {capturePath, projectPath}) {
        const QFileInfo info(base, path.trimmed());
        if (!path.trimmed().isEmpty() && info.exists())
            out << info.absoluteFilePath();
    }
    return out;
}

std::optional<RecordRequest> RecordingForm::request(QString *error) const
{
    *error = this->error();
    if (!error->isEmpty())
        return std::nullopt;
    RecordRequest r;
    r.model = resolvedModel();
    if (modelKind() != ModelKind::Folder && !tokenizer.trimmed().isEmpty())
        r.tokenizer = QFileInfo(base, tokenizer.trimmed()).absoluteFilePath();
    r.calls = calls;
    r.output = QFileInfo(base, capturePath.trimmed()).absoluteFilePath();
    if (useInputsScript) {
        r.inputsScript = resolvedInputsScript(); // its SHA-256: the user's consent, asked for by the caller
        return r;
    }
    QStringList texts;
    const QVector<PromptBox> all = earlier + boxes;
    for (const PromptBox &box : all)
        texts << promptsOf(box);
    r.prompts = *PromptBatches::fromBoxes(texts, error);
    const bool vision = isVisionFolder(), speech = isSpeechFolder();
    for (const PromptBox &box : all) {
        if (vision)
            r.images << absolutePaths(box.images, base);
        if (speech)
            r.audio << absolutePaths(box.audio, base);
    }
    r.maxNewTokens = maxNewTokens;
    r.numBeams = beamSearch ? numBeams : 1;
    return r;
}

void RecordingForm::setUnusedOutputs(const QDir &dir, const QString &stem)
{
    for (int n = 1;; ++n) {
        const QString name = n == 1 ? stem : QStringLiteral("%1-%2").arg(stem).arg(n);
        const QString capture = dir.filePath(name + QStringLiteral(".safetensors"));
        const QString project = dir.filePath(name + QStringLiteral(".dimscope"));
        if (!QFileInfo::exists(capture) && !QFileInfo::exists(project)) {
            capturePath = capture;
            projectPath = project;
            return;
        }
    }
}

void RecordingForm::setDefaultOutputs()
{
    const ModelKind kind = modelKind();
    QString error;
    const std::optional<ModelReference> ref = kind == ModelKind::Empty || kind == ModelKind::Invalid
                                                  ? std::nullopt
                                                  : ModelReference::resolve(model.trimmed(), base, &error);
    if (!ref)
        return;
    const QFileInfo path(ref->path());
    if (kind == ModelKind::Folder)
        setUnusedOutputs(path.absoluteDir(), path.fileName());
    else if (kind == ModelKind::File)
        setUnusedOutputs(path.absoluteDir(), path.completeBaseName());
    else
        setUnusedOutputs(base, ref->module().section(QLatin1Char('.'), -1));
}

RecordingForm RecordingForm::moreCalls(const QJsonObject &recording, const QString &capturePath)
{
    RecordingForm form;
    form.model = recording.value(QLatin1String("model")).toString();
    if (recording.value(QLatin1String("model_kind")).toString() != QLatin1String("folder"))
        form.tokenizer = recording.value(QLatin1String("tokenizer")).toString();
    const QJsonArray batches = recording.value(QLatin1String("batches")).toArray();
    const QJsonArray images = recording.value(QLatin1String("images")).toArray();
    const QJsonArray audio = recording.value(QLatin1String("audio")).toArray();
    const auto lines = [](const QJsonValue &list) {
        QStringList out;
        for (const QJsonValue &v : list.toArray())
            out << v.toString();
        return out.join(QLatin1Char('\n'));
    };
    for (qsizetype b = 0; b < batches.size(); ++b)
        form.earlier << PromptBox{lines(batches.at(b)), lines(images.at(b)), lines(audio.at(b))};
    form.maxNewTokens = recording.value(QLatin1String("max_new_tokens")).toInt(8);
    const int beams = recording.value(QLatin1String("num_beams")).toInt(1);
    form.beamSearch = beams > 1;
    form.numBeams = qMax(2, beams);
    const QFileInfo capture(capturePath);
    form.setUnusedOutputs(capture.absoluteDir(), capture.completeBaseName() + QStringLiteral("-more"));
    return form;
}

} // namespace dimscope
