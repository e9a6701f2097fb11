// SPDX-License-Identifier: GPL-3.0-or-later
// PhasedExport against the real Python worker, driven and observed through its
// signals alone: a model whose code branches on a size of 1 (like generate()'s
// decode step) cannot be served by one program for calls of sizes 1 and >= 2, so the
// pipeline exports a second program for the calls the first rejects, and every call
// replays through one of them. Needs the torch runtime (scripts/setup).
#include "capture/capturereader.h"
#include "export/exportclient.h"
#include "export/exportphases.h"
#include "export/phasedexport.h"
#include "recordedcapture.h"
#include "shapes/shapeinference.h"

#include <QFileInfo>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include "deterministictestmain.h"

using namespace dimscope;

namespace {
constexpr int kTimeout = 300000;
}

class TestPhasedExport : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void callsOneProgramRejectsGetTheirOwnProgram();
    void withoutPhasesTheRejectedCallsAreListed();

private:
    PhasedExportOutcome run(const PhasedExport::Options &options, const QString &output, QSignalSpy **attempts);
    QTemporaryDir m_dir;
    Capture m_capture;
    ConstraintSet m_inferred;
};

void TestPhasedExport::initTestCase()
{
    QVERIFY(m_dir.isValid());
    const QString recordError = test::recordCapture(
        m_dir.path(), QStringLiteral("branchy"),
        QStringLiteral("import torch\n"
                       "class Branchy(torch.nn.Module):\n"
                       "    def forward(self, x):\n"
                       "        if x.shape[0] == 1:  # one row: a different computation, like a decode step\n"
                       "            return x * 2\n"
                       "        return x - x.mean(0, keepdim=True)\n"),
        QStringLiteral("Branchy"), QStringLiteral("for n in (1, 4, 1, 5, 6):\n    m(torch.randn(n, 3))"),
        m_dir.filePath(QStringLiteral("calls.safetensors")), 5);
    QVERIFY2(recordError.isEmpty(), qPrintable(recordError));
    QString error;
    const std::optional<Capture> capture = CaptureReader::open(m_dir.filePath(QStringLiteral("calls.safetensors")), &error);
    QVERIFY2(capture, qPrintable(error));
    m_capture = *capture;
    const InferenceResult inferred = ShapeInference::infer(m_capture, InferenceOptions::defaultsFor(m_capture));
    QVERIFY(!inferred.hasErrors());
    m_inferred = inferred.constraints;
}

PhasedExportOutcome TestPhasedExport::run(const PhasedExport::Options &options, const QString &output,
                                          QSignalSpy **attempts)
{
    ExportClient client;
    PhasedExport pipeline(&client);
    *attempts = new QSignalSpy(&pipeline, &PhasedExport::attemptStarted);
    QSignalSpy finished(&pipeline, &PhasedExport::finished);
    ExportRequest base;
    base.model = m_dir.filePath(QStringLiteral("branchy.py:Branchy"));
    base.capture = m_dir.filePath(QStringLiteral("calls.safetensors"));
    base.output = output;
    pipeline.start(m_capture, m_inferred, base, options);
    if (!finished.wait(kTimeout))
        qWarning("the pipeline did not finish");
    client.shutdown();
    return pipeline.outcome();
}

void TestPhasedExport::callsOneProgramRejectsGetTheirOwnProgram()
{
    QSignalSpy *attempts = nullptr;
    const QString output = m_dir.filePath(QStringLiteral("branchy.pt2"));
    const PhasedExportOutcome outcome = run(PhasedExport::Options{}, output, &attempts);
    std::unique_ptr<QSignalSpy> owned(attempts);
    QVERIFY2(outcome.servesEveryCall(), qPrintable(outcome.summary()));
    QCOMPARE(outcome.programs.size(), 2);
    QCOMPARE(attempts->count(), 2);
    // The first program is exported from a call with >= 2 rows and serves those calls;
    // the calls with one row get a program of their own, beside it.
    QCOMPARE(outcome.programs.at(0).calls, (QVector<int>{1, 3, 4}));
    QCOMPARE(outcome.programs.at(0).result.output, output);
    QCOMPARE(outcome.programs.at(1).calls, (QVector<int>{0, 2}));
    QCOMPARE(outcome.programs.at(1).result.output, ExportPhases::outputPath(output, 2));
    QVERIFY(outcome.programs.at(1).description.contains(QLatin1String("x dim 0 = 1")));
    for (const ExportedProgram &p : outcome.programs)
        QVERIFY2(QFileInfo(p.result.output).isFile(), qPrintable(p.result.output));
    QCOMPARE(outcome.summary(), QStringLiteral("every captured call (5) replays through its 2 programs"));
    // Every round is kept, each attempt's last one being the round that exported its program
    QVERIFY(outcome.rounds.size() >= 2);
    QCOMPARE(outcome.rounds.first().output, output);
    QCOMPARE(outcome.rounds.last().output, outcome.programs.at(1).result.output);
}

void TestPhasedExport::withoutPhasesTheRejectedCallsAreListed()
{
    QSignalSpy *attempts = nullptr;
    PhasedExport::Options options;
    options.fixLoop = false;
    options.phases = false;
    const PhasedExportOutcome outcome = run(options, m_dir.filePath(QStringLiteral("single.pt2")), &attempts);
    std::unique_ptr<QSignalSpy> owned(attempts);
    QCOMPARE(attempts->count(), 1);
    QCOMPARE(outcome.programs.size(), 1);
    QCOMPARE(outcome.unserved, (QVector<int>{0, 2}));
    QVERIFY(!outcome.servesEveryCall());
    QCOMPARE(outcome.summary(), QStringLiteral("calls 0, 2 (2 of 5) are served by no exported program"));
}

DIMSCOPE_GUILESS_TEST_MAIN(TestPhasedExport)
#include "tst_phasedexport.moc"
