// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture/capturereader.h"
#include "project/projectfile.h"
#include "inference/inferencenotes.h"
#include "inference/shapeinference.h"

#include <QTemporaryDir>
#include "deterministictestmain.h"

using namespace dimscope;

// The inference's notes quote Dim names; after the user renames a Dim (and saves and
// reopens the project, which infers afresh with the old names) they must quote the new
// names. Runs on the bundled demo capture, whose proposal has the note
// "'total_len' = 'seq_len' + 'past_len' ...".
class TestInferenceNotes : public QObject
{
    Q_OBJECT

private:
    static QString demoCapture() { return QStringLiteral(DIMSCOPE_SOURCE_DIR "/resources/demo/demo-capture.safetensors"); }
    static QString sumNote(const QVector<InferenceMessage> &messages)
    {
        for (const InferenceMessage &m : messages)
            if (m.severity == InferenceMessage::Severity::Note && m.text.contains(QLatin1String(" + ")))
                return m.text;
        return {};
    }

private slots:
    void renameSurvivesSaveAndReopen()
    {
        // Given the demo capture inferred, with its sum note in the inferred names
        QString error;
        const std::optional<Capture> capture = CaptureReader::open(demoCapture(), &error);
        QVERIFY2(capture, qPrintable(error));
        const InferenceResult inferred = ShapeInference::infer(*capture);
        QVERIFY(sumNote(inferred.messages).startsWith(QLatin1String("'total_len' = 'seq_len' + 'past_len'")));

        // When seq_len is renamed to q_len and the project saved and read back
        ConstraintSet edited = inferred.constraints;
        QCOMPARE(edited.renameDim(QStringLiteral("seq_len"), QStringLiteral("q_len")), QString());
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("p.dimscope"));
        ProjectFile project;
        project.capturePath = demoCapture();
        project.constraints = edited;
        QVERIFY2(ProjectFile::write(path, project, &error), qPrintable(error));
        const std::optional<ProjectFile> reopened = ProjectFile::read(path, &error);
        QVERIFY2(reopened && reopened->constraints, qPrintable(error));

        // Then the freshly inferred note, in the reopened set's names, quotes q_len
        const InferenceResult again = ShapeInference::infer(*capture);
        const QVector<InferenceMessage> notes = InferenceNotes::inCurrentNames(again, *reopened->constraints);
        const QString note = sumNote(notes);
        QVERIFY2(note.startsWith(QLatin1String("'total_len' = 'q_len' + 'past_len'")), qPrintable(note));
        QVERIFY(!note.contains(QLatin1String("seq_len")));
        // and the 0/1 warning of the renamed Dim is now about q_len
        bool warnsQLen = false;
        for (const InferenceMessage &m : notes)
            warnsQLen |= m.dim == QLatin1String("q_len") && m.text.contains(QLatin1String("Dim 'q_len'"));
        QVERIFY(warnsQLen);
    }

    void deletedDimDropsItsNotes()
    {
        // Given the demo proposal with total_len deleted (its dimensions become static)
        QString error;
        const std::optional<Capture> capture = CaptureReader::open(demoCapture(), &error);
        QVERIFY2(capture, qPrintable(error));
        const InferenceResult inferred = ShapeInference::infer(*capture);
        ConstraintSet edited = inferred.constraints;
        QCOMPARE(edited.removeDim(QStringLiteral("total_len")), QString());
        // Then no message is about total_len any more
        for (const InferenceMessage &m : InferenceNotes::inCurrentNames(inferred, edited))
            QVERIFY2(m.dim != QLatin1String("total_len"), qPrintable(m.text));
    }

    void swappedNamesAreRenamedOnce()
    {
        // a <-> b swapped: a sequential replace would turn both into the same name
        const QHash<QString, QString> names{{QStringLiteral("a"), QStringLiteral("b")},
                                            {QStringLiteral("b"), QStringLiteral("a")}};
        QCOMPARE(InferenceNotes::renameQuoted(QStringLiteral("'a' = 'b' + 1 (a b 'ab')"), names),
                 QStringLiteral("'b' = 'a' + 1 (a b 'ab')"));
    }

    void followsTheStructureNotTheName()
    {
        // Given an inferred set where x uses Dim "n", and a current set where that leaf
        // dimension uses "m" and another Dim is now called "n"
        ConstraintSet inferred;
        QCOMPARE(inferred.addRootDim(QStringLiteral("n"), 2, std::nullopt), QString());
        QCOMPARE(inferred.setLeaf(QStringLiteral("x"), {DimAssignment::named(QStringLiteral("n"))}), QString());
        ConstraintSet current;
        QCOMPARE(current.addRootDim(QStringLiteral("m"), 2, std::nullopt), QString());
        QCOMPARE(current.addRootDim(QStringLiteral("n"), 2, std::nullopt), QString());
        QCOMPARE(current.setLeaf(QStringLiteral("x"), {DimAssignment::named(QStringLiteral("m"))}), QString());
        // Then "n" of the inference is "m" now
        QCOMPARE(InferenceNotes::currentNames(inferred, current).value(QStringLiteral("n")), QStringLiteral("m"));
    }
};

QTEST_MAIN(TestInferenceNotes)
#include "tst_inferencenotes.moc"
