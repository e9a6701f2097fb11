// SPDX-License-Identifier: GPL-3.0-or-later
// File > New Recording…'s form without widgets (issue 21 item 1): the first thing that
// keeps it from recording is named by its field (no model, a folder without
// config.json, a factory without a tokenizer, an empty prompt box, a vision folder's
// missing image, outputs that are one file); the request is the worker's `record`
// request (a box a batch, images in the prompts' order, beams only with beam search);
// a speech folder's prompts each take a WAV file (named after it when left empty); an
// inputs script replaces the boxes and is sent with the SHA-256 the user agrees to;
// the default outputs sit beside the model, named after it, never an existing file;
// Record More Calls… records the recording's calls again first; a folder's auto_map
// lists the files the worker checks consent against; the Export dock's summary.
#include "export/remotecodefiles.h"
#include "recording/recordingform.h"
#include "recording/recordingsummary.h"

#include "deterministictestmain.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QTemporaryDir>

using namespace dimscope;

class TestRecordingForm : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    QString write(const QString &name, const QByteArray &text)
    {
        QDir(m_dir.path()).mkpath(QFileInfo(name).path());
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
            qFatal("cannot write the test file");
        return f.fileName();
    }

    RecordingForm folderForm()
    {
        RecordingForm form;
        form.base = QDir(m_dir.path());
        form.model = QStringLiteral("tiny-llama");
        form.boxes = {{QStringLiteral("the cat sat\na dog ran"), {}, {}}, {QStringLiteral("what is"), {}, {}}};
        form.setDefaultOutputs();
        return form;
    }

private slots:
    void initTestCase()
    {
        write(QStringLiteral("tiny-llama/config.json"), "{\"architectures\": [\"LlamaForCausalLM\"]}");
        write(QStringLiteral("tiny-llava/config.json"), "{\"vision_config\": {}}");
        write(QStringLiteral("factory.py"), "def make(): pass\n");
        write(QStringLiteral("red.png"), "not read here");
        write(QStringLiteral("tiny-whisper/config.json"), "{\"architectures\": [\"WhisperForConditionalGeneration\"], \"num_mel_bins\": 16}");
        write(QStringLiteral("a.wav"), "not read here");
        write(QStringLiteral("b.wav"), "not read here");
        write(QStringLiteral("calls.py"), "def calls(model, processor):\n    model(input_ids=None)\n");
    }

    void speechFolderTakesAnAudioFilePerPrompt()
    {
        RecordingForm form = folderForm();
        QVERIFY(!form.isSpeechFolder());
        form.model = QStringLiteral("tiny-whisper");
        QVERIFY(form.isSpeechFolder() && !form.isVisionFolder());
        QVERIFY2(form.error().startsWith(QLatin1String("Prompt box 1: 2 prompt(s) and 0 audio file(s): a speech model")),
                 qPrintable(form.error()));
        // Prompts name the clips; left empty, each clip is named by its file.
        form.boxes = {{QString(), {}, QStringLiteral("a.wav\nb.wav")}, {QStringLiteral("the second clip"), {}, QStringLiteral("gone.wav")}};
        QVERIFY2(form.error().startsWith(QLatin1String("Prompt box 2: audio file 1 ")) && form.error().contains(QLatin1String("gone.wav does not exist")),
                 qPrintable(form.error()));
        form.boxes[1].audio = QStringLiteral("b.wav");
        QString error;
        const std::optional<RecordRequest> r = form.request(&error);
        QVERIFY2(r, qPrintable(error));
        QCOMPARE(r->prompts.toJson(), (QJsonArray{QJsonArray{QStringLiteral("a.wav"), QStringLiteral("b.wav")},
                                                  QJsonArray{QStringLiteral("the second clip")}}));
        QCOMPARE(r->audio, (QStringList{m_dir.filePath(QStringLiteral("a.wav")), m_dir.filePath(QStringLiteral("b.wav")),
                                        m_dir.filePath(QStringLiteral("b.wav"))}));
        QVERIFY(r->images.isEmpty());
        QCOMPARE(r->toParams().value(QLatin1String("audio")).toArray().size(), 2); // a list per generate() call
        // An empty box is still empty: no clip to name it after.
        form.boxes[1] = {};
        QVERIFY2(form.error().startsWith(QLatin1String("Prompt box 2 is empty")), qPrintable(form.error()));
        // A text-only folder sends no audio, whatever the boxes hold.
        form = folderForm();
        form.boxes[0].audio = QStringLiteral("a.wav");
        QVERIFY(form.request(&error)->audio.isEmpty());
    }

    void inputsScriptReplacesThePrompts()
    {
        RecordingForm form = folderForm();
        form.useInputsScript = true;
        form.boxes = {{QStringLiteral("  "), {}, {}}}; // not used: the script runs the model
        QVERIFY2(form.error().startsWith(QLatin1String("Inputs script: give the function")), qPrintable(form.error()));
        form.inputsScript = QStringLiteral("gone.py:calls");
        QVERIFY2(form.error().startsWith(QLatin1String("Inputs script: ")) && form.error().contains(QLatin1String("gone.py")),
                 qPrintable(form.error()));
        form.inputsScript = QStringLiteral("tiny-llama");
        QVERIFY2(form.error().startsWith(QLatin1String("Inputs script: ")), qPrintable(form.error()));
        form.inputsScript = QStringLiteral("calls.py:calls");
        QCOMPARE(form.error(), QString());
        QCOMPARE(form.inputsScriptFile(), m_dir.filePath(QStringLiteral("calls.py")));
        QString error;
        const QString sha = form.inputsScriptSha256(&error);
        QFile script(m_dir.filePath(QStringLiteral("calls.py")));
        QVERIFY(script.open(QIODevice::ReadOnly));
        QCOMPARE(sha, QString::fromLatin1(QCryptographicHash::hash(script.readAll(), QCryptographicHash::Sha256).toHex()));
        std::optional<RecordRequest> r = form.request(&error);
        QVERIFY2(r, qPrintable(error));
        QCOMPARE(r->inputsScript, m_dir.filePath(QStringLiteral("calls.py")) + QStringLiteral(":calls"));
        r->inputsScriptSha256 = sha; // the user's yes, which the controller asks for
        const QJsonObject params = r->toParams();
        QCOMPARE(params.value(QLatin1String("inputs_script_sha256")).toString(), sha);
        QVERIFY(!params.contains(QLatin1String("batches")) && !params.contains(QLatin1String("max_new_tokens")));
        // A factory needs no tokenizer with a script (the script prepares its inputs).
        form.model = QStringLiteral("factory.py:make");
        QCOMPARE(form.error(), QString());
        // A module's function: no file to hash here (Python finds it).
        form.inputsScript = QStringLiteral("mypackage.calls:calls");
        QCOMPARE(form.error(), QString());
        QVERIFY(form.inputsScriptFile().isEmpty());
        QCOMPARE(form.request(&error)->inputsScript, QStringLiteral("mypackage.calls:calls"));
    }

    void firstErrorNamesTheField()
    {
        RecordingForm form = folderForm();
        QCOMPARE(form.error(), QString());
        form.model.clear();
        QVERIFY(form.error().startsWith(QLatin1String("Model: choose")));
        form.model = QStringLiteral("tiny-nothing");
        QVERIFY2(form.error().startsWith(QLatin1String("Model: ")) && form.error().contains(QLatin1String("is no folder")),
                 qPrintable(form.error()));
        form.model = m_dir.path(); // a folder, but no model's
        QVERIFY2(form.error().contains(QLatin1String("has no config.json")), qPrintable(form.error()));
        form.model = QStringLiteral("factory.py:make");
        QCOMPARE(form.modelKind(), RecordingForm::ModelKind::File);
        QVERIFY(form.error().startsWith(QLatin1String("Tokenizer:")));
        form.tokenizer = QStringLiteral("tiny-llama");
        QCOMPARE(form.error(), QString());

        form = folderForm();
        form.boxes[1].prompts = QStringLiteral("  \n");
        QVERIFY2(form.error().startsWith(QLatin1String("Prompt box 2 is empty")), qPrintable(form.error()));
        form.boxes.clear();
        QVERIFY(form.error().startsWith(QLatin1String("No prompt box")));

        form = folderForm();
        form.beamSearch = true;
        form.numBeams = 1;
        QVERIFY(form.error().startsWith(QLatin1String("Beams:")));
        form = folderForm();
        form.projectPath = form.capturePath;
        QVERIFY(form.error().contains(QLatin1String("the same file")));
    }

    void visionFolderTakesAnImagePerPrompt()
    {
        RecordingForm form = folderForm();
        QVERIFY(!form.isVisionFolder());
        form.model = QStringLiteral("tiny-llava");
        QVERIFY(form.isVisionFolder());
        QVERIFY2(form.error().startsWith(QLatin1String("Prompt box 1: 2 prompt(s) and 0 image(s)")), qPrintable(form.error()));
        form.boxes[0].images = QStringLiteral("red.png\ngone.png");
        form.boxes[1].images = QStringLiteral("red.png");
        QVERIFY2(form.error().startsWith(QLatin1String("Prompt box 1: image 2 ")), qPrintable(form.error()));
        QVERIFY(form.error().contains(QLatin1String("gone.png does not exist")));
        form.boxes[0].images = QStringLiteral("red.png\n") + m_dir.filePath(QStringLiteral("red.png"));
        QString error;
        const std::optional<RecordRequest> r = form.request(&error);
        QVERIFY2(r, qPrintable(error));
        QCOMPARE(r->images, QStringList(3, m_dir.filePath(QStringLiteral("red.png"))));
        // A text-only folder sends no image, whatever the boxes hold.
        form.model = QStringLiteral("tiny-llama");
        QVERIFY(form.request(&error)->images.isEmpty());
    }

    void requestIsTheWorkersRecord()
    {
        RecordingForm form = folderForm();
        form.maxNewTokens = 3;
        form.calls = 5;
        QString error;
        std::optional<RecordRequest> r = form.request(&error);
        QVERIFY2(r, qPrintable(error));
        QCOMPARE(r->model, m_dir.filePath(QStringLiteral("tiny-llama")));
        QCOMPARE(r->prompts.toJson(), (QJsonArray{QJsonArray{QStringLiteral("the cat sat"), QStringLiteral("a dog ran")},
                                                  QJsonArray{QStringLiteral("what is")}}));
        QCOMPARE(r->numBeams, 1); // greedy: the beams field is kept for when it is chosen
        QCOMPARE(r->maxNewTokens, 3);
        QCOMPARE(r->calls, 5);
        QCOMPARE(r->output, m_dir.filePath(QStringLiteral("tiny-llama.safetensors")));
        QVERIFY(!r->overwrite);
        form.beamSearch = true;
        form.numBeams = 3;
        QCOMPARE(form.request(&error)->numBeams, 3);
    }

    void defaultOutputsAreBesideTheModelAndNew()
    {
        RecordingForm form = folderForm();
        QCOMPARE(form.capturePath, m_dir.filePath(QStringLiteral("tiny-llama.safetensors")));
        QCOMPARE(form.projectPath, m_dir.filePath(QStringLiteral("tiny-llama.dimscope")));
        QVERIFY(form.existingOutputs().isEmpty());
        write(QStringLiteral("tiny-llama.dimscope"), "{}");
        QCOMPARE(form.existingOutputs(), QStringList{m_dir.filePath(QStringLiteral("tiny-llama.dimscope"))});
        form.setDefaultOutputs();
        QCOMPARE(form.capturePath, m_dir.filePath(QStringLiteral("tiny-llama-2.safetensors")));
        QCOMPARE(form.projectPath, m_dir.filePath(QStringLiteral("tiny-llama-2.dimscope")));
        QFile::remove(m_dir.filePath(QStringLiteral("tiny-llama.dimscope")));
        form.model = QStringLiteral("factory.py:make");
        form.setDefaultOutputs();
        QCOMPARE(form.capturePath, m_dir.filePath(QStringLiteral("factory.safetensors")));
    }

    void moreCallsRecordsTheEarlierCallsFirst()
    {
        const QJsonObject recording{{QStringLiteral("model"), m_dir.filePath(QStringLiteral("tiny-llama"))},
                                    {QStringLiteral("model_kind"), QStringLiteral("folder")},
                                    {QStringLiteral("batches"), QJsonArray{QJsonValue(QJsonArray{QStringLiteral("a b"), QStringLiteral("c")})}},
                                    {QStringLiteral("images"), QJsonValue()},
                                    {QStringLiteral("max_new_tokens"), 4},
                                    {QStringLiteral("num_beams"), 1}};
        RecordingForm form = RecordingForm::moreCalls(recording, m_dir.filePath(QStringLiteral("run.safetensors")));
        QCOMPARE(form.earlier.size(), 1);
        QCOMPARE(form.capturePath, m_dir.filePath(QStringLiteral("run-more.safetensors")));
        QCOMPARE(form.maxNewTokens, 4);
        form.boxes = {{QString(), {}, {}}};
        QVERIFY2(form.error().startsWith(QLatin1String("Prompt box 2 is empty")), qPrintable(form.error()));
        form.boxes[0].prompts = QStringLiteral("the bird sang a song");
        QString error;
        const std::optional<RecordRequest> r = form.request(&error);
        QVERIFY2(r, qPrintable(error));
        QCOMPARE(r->prompts.toJson(), (QJsonArray{QJsonArray{QStringLiteral("a b"), QStringLiteral("c")},
                                                  QJsonArray{QStringLiteral("the bird sang a song")}}));
    }

    void autoMapListsTheCodeItWouldRun()
    {
        const QByteArray code = "open('/tmp/x', 'w')\n";
        write(QStringLiteral("remote/config.json"),
              "{\"auto_map\": {\"AutoConfig\": \"configuration_x.XConfig\", \"AutoModelForCausalLM\": \"repo--modeling_x.X\"}}");
        write(QStringLiteral("remote/tokenizer_config.json"), "{\"auto_map\": {\"AutoTokenizer\": [\"tok.T\", null]}}");
        write(QStringLiteral("remote/modeling_x.py"), code);
        QString error;
        const RemoteCodeFiles files = RemoteCodeFiles::of(m_dir.filePath(QStringLiteral("remote")), &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(files.sources().size(), 2);
        QCOMPARE(files.files().keys(), (QStringList{QStringLiteral("configuration_x.py"), QStringLiteral("modeling_x.py"),
                                                    QStringLiteral("tok.py")}));
        const QString sha = QString::fromLatin1(QCryptographicHash::hash(code, QCryptographicHash::Sha256).toHex());
        QCOMPARE(files.consent().value(QLatin1String("modeling_x.py")).toString(), sha);
        QVERIFY(files.consent().value(QLatin1String("tok.py")).isNull()); // named, absent
        QVERIFY(RemoteCodeFiles::of(m_dir.filePath(QStringLiteral("tiny-llama")), &error).isEmpty());
        write(QStringLiteral("broken/config.json"), "{");
        QVERIFY(RemoteCodeFiles::of(m_dir.filePath(QStringLiteral("broken")), &error).isEmpty());
        QVERIFY(error.contains(QLatin1String("broken/config.json: not a JSON object")));
    }

    void summarySaysWhatMadeTheCapture()
    {
        const QJsonObject scripted{{QStringLiteral("model"), QStringLiteral("/m/tiny-t5")},
                                   {QStringLiteral("model_kind"), QStringLiteral("folder")},
                                   {QStringLiteral("auto_class"), QStringLiteral("AutoModelForSeq2SeqLM")},
                                   {QStringLiteral("batches"), QJsonValue()},
                                   {QStringLiteral("inputs_script"), QStringLiteral("/s/calls.py:calls")},
                                   {QStringLiteral("inputs_script_sha256"), QStringLiteral("ab12")},
                                   {QStringLiteral("max_calls"), QJsonValue()},
                                   {QStringLiteral("forward_calls"), 3}};
        QCOMPARE(RecordingSummary::describe(scripted),
                 QStringLiteral("Recorded from tiny-t5 (AutoModelForSeq2SeqLM): 3 of 3 forward call(s) of the inputs script "
                                "/s/calls.py:calls (SHA-256 ab12)"));
        QVERIFY(RecordingSummary::finished({{QStringLiteral("calls"), 3}, {QStringLiteral("forward_calls"), 3},
                                            {QStringLiteral("inputs_script"), QStringLiteral("/s/calls.py:calls")}})
                    .startsWith(QLatin1String("Recorded 3 of 3 forward call(s) of the inputs script /s/calls.py:calls")));
        QCOMPARE(RecordingSummary::describe({}), QString());
        const QJsonObject recording{{QStringLiteral("model"), QStringLiteral("/m/tiny-llama")},
                                    {QStringLiteral("model_kind"), QStringLiteral("folder")},
                                    {QStringLiteral("auto_class"), QStringLiteral("AutoModelForCausalLM")},
                                    {QStringLiteral("batches"), QJsonArray{QJsonArray{QStringLiteral("a\x1b[2Jb")}, QJsonArray{QStringLiteral("c")}}},
                                    {QStringLiteral("max_new_tokens"), 2},
                                    {QStringLiteral("num_beams"), 3},
                                    {QStringLiteral("max_calls"), QJsonValue()},
                                    {QStringLiteral("forward_calls"), 4},
                                    {QStringLiteral("padding_side"), QStringLiteral("left")}};
        const QStringList lines = RecordingSummary::describe(recording).split(QLatin1Char('\n'));
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines.at(0), QStringLiteral("Recorded from tiny-llama (AutoModelForCausalLM): 4 of 4 forward call(s) in 2 "
                                             "generate() call(s); max_new_tokens 2, beam search, 3 beams, padding left"));
        QVERIFY2(lines.at(1).startsWith(QLatin1String("generate() call 1: ")) && !lines.at(1).contains(QChar(0x1b)),
                 qPrintable(lines.at(1)));
        const QJsonObject result{{QStringLiteral("calls"), 4}, {QStringLiteral("forward_calls"), 4},
                                 {QStringLiteral("generate_calls"), 2}, {QStringLiteral("seconds"), 3.14},
                                 {QStringLiteral("max_rss_bytes"), 512.0 * 1024 * 1024}};
        QCOMPARE(RecordingSummary::finished(result),
                 QStringLiteral("Recorded 4 of 4 forward call(s) in 2 generate() call(s) in 3.1 s, peak memory 512 MiB"));
        QCOMPARE(RecordingSummary::finished({{QStringLiteral("calls"), 1}}),
                 QStringLiteral("Recorded 1 of 0 forward call(s) in 0 generate() call(s)"));
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestRecordingForm)
#include "tst_recordingform.moc"
