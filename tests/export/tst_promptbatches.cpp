// SPDX-License-Identifier: GPL-3.0-or-later
// The prompts of `dimscope-cli record` (issue 21 item 5) without a worker: a prompts
// file's blocks become batches, each prompt with its line; an empty block, an empty file
// and a file that is not a regular file are refused naming the file and the line; the
// request's params are the worker's `record` params, and a worker failure that names a
// batch and a prompt is reported with the line the user wrote it on.
#include "export/exportresult.h"
#include "export/promptbatches.h"
#include "export/recordrequest.h"

#include "deterministictestmain.h"

#include <QJsonArray>
#include <QTemporaryDir>

using namespace dimscope;

class TstPromptBatches : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    QString write(const QString &name, const QByteArray &text)
    {
        QFile f(m_dir.filePath(name));
        if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
            qFatal("cannot write the test file");
        return f.fileName();
    }

private slots:
    void blocksAreBatchesAndLinesArePrompts()
    {
        const QString path = write(QStringLiteral("prompts.txt"), "the cat sat\r\na dog\n   \nwhat is\n");
        QString error;
        const std::optional<PromptBatches> p = PromptBatches::readFile(path, &error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(p->batches().size(), 2);
        QCOMPARE(p->promptCount(), 3);
        QCOMPARE(p->toJson(), (QJsonArray{QJsonArray{QStringLiteral("the cat sat"), QStringLiteral("a dog")},
                                          QJsonArray{QStringLiteral("what is")}}));
        QCOMPARE(p->placeOf(0, 1), QStringLiteral("prompts.txt:2"));
        QCOMPARE(p->placeOf(1, 0), QStringLiteral("prompts.txt:4"));
        QCOMPARE(p->placeOf(1, -1), QStringLiteral("prompts.txt:4"));
        QVERIFY(p->placeOf(2, 0).isEmpty());
    }

    void emptyBlocksAreRefusedWithTheirLine_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("two blank lines") << QByteArray("a\n\n\nb\n") << QStringLiteral(":3: an empty prompt block");
        QTest::newRow("blank first") << QByteArray("\na\n") << QStringLiteral(":1: an empty prompt block");
        QTest::newRow("blank last") << QByteArray("a\n\n") << QStringLiteral(":2: an empty prompt block");
        QTest::newRow("empty file") << QByteArray() << QStringLiteral(": no prompt");
    }

    void emptyBlocksAreRefusedWithTheirLine()
    {
        QFETCH(QByteArray, text);
        QFETCH(QString, expected);
        const QString path = write(QStringLiteral("p.txt"), text);
        QString error;
        QVERIFY(!PromptBatches::readFile(path, &error));
        QVERIFY2(error.startsWith(path + expected), qPrintable(error));
    }

    void aFolderIsNoPromptsFile()
    {
        QString error;
        QVERIFY(!PromptBatches::readFile(m_dir.path(), &error));
        QVERIFY2(error.startsWith(m_dir.path() + QStringLiteral(": ")) && error.contains(QLatin1String("directory")),
                 qPrintable(error));
    }

    void requestParamsAndFailurePlaces()
    {
        RecordRequest r;
        r.model = QStringLiteral("/models/tiny");
        r.prompts = PromptBatches::oneBatch({QStringLiteral("a"), QStringLiteral("b")}, QStringLiteral("--prompt"));
        r.output = QStringLiteral("/out/c.safetensors");
        r.maxNewTokens = 3;
        const QJsonObject p = r.toParams();
        QCOMPARE(p.value(QLatin1String("batches")).toArray(), (QJsonArray{QJsonValue(QJsonArray{QStringLiteral("a"), QStringLiteral("b")})}));
        QCOMPARE(p.value(QLatin1String("max_new_tokens")).toInt(), 3);
        QCOMPARE(p.value(QLatin1String("num_beams")).toInt(), 1);
        QCOMPARE(p.value(QLatin1String("overwrite")).toBool(), false);
        QCOMPARE(p.value(QLatin1String("trust_remote_code")).toBool(), false);
        QVERIFY(!p.contains(QLatin1String("calls")) && !p.contains(QLatin1String("tokenizer")));

        WorkerFailure f = WorkerFailure::fromJson(QJsonObject{{QStringLiteral("kind"), QStringLiteral("prompt_too_long")},
                                                              {QStringLiteral("message"), QStringLiteral("too long")},
                                                              {QStringLiteral("batch"), 0},
                                                              {QStringLiteral("prompt"), 1}});
        QCOMPARE(r.describe(f), QStringLiteral("--prompt 2: too long"));
        f = WorkerFailure::make(QStringLiteral("no_tokenizer"), QStringLiteral("no tokenizer"));
        QCOMPARE(r.describe(f), QStringLiteral("no tokenizer"));

        // The GUI's consent to a folder's code is the files and their hashes it showed.
        r.remoteCodeConsent = QJsonObject{{QStringLiteral("modeling_x.py"), QStringLiteral("ab12")}};
        QCOMPARE(r.toParams().value(QLatin1String("trust_remote_code")).toObject(), r.remoteCodeConsent);
    }

    // An inputs script runs the model itself: the request carries the script (and the
    // hash the user agreed to) and no prompts or generation settings; audio files are
    // nested like the batches, as images are (docs/worker-protocol.md, "record").
    void inputsScriptAndAudioParams()
    {
        RecordRequest r;
        r.model = QStringLiteral("/models/tiny");
        r.prompts = PromptBatches::oneBatch({QStringLiteral("a"), QStringLiteral("b")}, QStringLiteral("--prompt"));
        r.output = QStringLiteral("/out/c.safetensors");
        r.audio = QStringList{QStringLiteral("/clips/a.wav"), QStringLiteral("/clips/b.wav")};
        QJsonObject p = r.toParams();
        QCOMPARE(p.value(QLatin1String("audio")).toArray(),
                 (QJsonArray{QJsonValue(QJsonArray{QStringLiteral("/clips/a.wav"), QStringLiteral("/clips/b.wav")})}));
        QVERIFY(!p.contains(QLatin1String("images")) && !p.contains(QLatin1String("inputs_script")));

        r.inputsScript = QStringLiteral("/scripts/calls.py:calls");
        r.inputsScriptSha256 = QStringLiteral("ab12");
        p = r.toParams();
        QCOMPARE(p.value(QLatin1String("inputs_script")).toString(), r.inputsScript);
        QCOMPARE(p.value(QLatin1String("inputs_script_sha256")).toString(), r.inputsScriptSha256);
        for (const char *key : {"batches", "audio", "images", "max_new_tokens", "num_beams"})
            QVERIFY2(!p.contains(QLatin1String(key)), key);
        QCOMPARE(p.value(QLatin1String("output")).toString(), r.output);
    }

    // The GUI's prompt boxes (issue 21 item 1): a box a batch, its non-blank lines the
    // prompts with their box and line; an empty box is refused naming it.
    void promptBoxesAreBatches()
    {
        QString error;
        const std::optional<PromptBatches> p =
            PromptBatches::fromBoxes({QStringLiteral("the cat sat\n\n a dog ran\r\n"), QStringLiteral("what is")}, &error);
        QVERIFY2(p, qPrintable(error));
        QCOMPARE(p->toJson(), (QJsonArray{QJsonArray{QStringLiteral("the cat sat"), QStringLiteral(" a dog ran")},
                                          QJsonArray{QStringLiteral("what is")}}));
        QCOMPARE(p->placeOf(0, 1), QStringLiteral("box 1, line 3"));
        QCOMPARE(p->placeOf(1, -1), QStringLiteral("box 2, line 1"));
        QVERIFY(!PromptBatches::fromBoxes({QStringLiteral("a"), QStringLiteral("  \n")}, &error));
        QVERIFY2(error.startsWith(QLatin1String("prompt box 2 is empty")), qPrintable(error));
        QVERIFY(!PromptBatches::fromBoxes({}, &error));
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TstPromptBatches)
#include "tst_promptbatches.moc"
