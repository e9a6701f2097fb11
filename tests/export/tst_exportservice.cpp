// SPDX-License-Identifier: GPL-3.0-or-later
// ExportService, the GUI's export without its widgets, against the real Python worker
// and observed through its signals alone: the worker's state, the pipeline's steps,
// the outcome and each program read back in Dim names; cancel leaves no worker.
// Needs the torch runtime (scripts/setup).
#include "capture/capturereader.h"
#include "export/exportclient.h"
#include "export/exportservice.h"
#include "recordedcapture.h"
#include "export/pythonruntime.h"
#include "inference/captureanalysis.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include "deterministictestmain.h"

using namespace dimscope;

namespace {
constexpr int kTimeout = 300000;
}

class TestExportService : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void exportsEveryCallAndReadsTheProgramsBack();
    void cancelStopsTheWorker();

private:
    ExportRequest request(const QString &output) const;
    QTemporaryDir m_dir;
    Capture m_capture;
    ConstraintSet m_inferred;
};

void TestExportService::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // Its code branches on a size of 1 (like generate()'s decode step): one program
    // cannot serve calls of size 1 and >= 2, so the pipeline exports two.
    const QString error = test::recordCapture(m_dir.path(), QStringLiteral("branchy"),
                                              QStringLiteral("import torch\n"
                                                             "class Branchy(torch.nn.Module):\n"
                                                             "    def forward(self, x):\n"
                                                             "        if x.shape[0] == 1:\n"
                                                             "            return x * 2\n"
                                                             "        return x - x.mean(0, keepdim=True)\n"),
                                              QStringLiteral("Branchy"),
                                              QStringLiteral("for n in (1, 4, 1, 5, 6):\n    m(torch.randn(n, 3))"),
                                              m_dir.filePath(QStringLiteral("calls.safetensors")), 5);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QString why;
    const std::optional<CaptureAnalysis> analysis = CaptureAnalysis::open(m_dir.filePath(QStringLiteral("calls.safetensors")), &why);
    QVERIFY2(analysis, qPrintable(why));
    QVERIFY(!analysis->inference.hasErrors());
    m_capture = analysis->capture;
    m_inferred = analysis->inference.constraints;
}

ExportRequest TestExportService::request(const QString &output) const
{
    return ExportRequest::make(m_dir.filePath(QStringLiteral("branchy.py")) + QStringLiteral(":Branchy"),
                               m_dir.filePath(QStringLiteral("calls.safetensors")), output, ExportOptions{});
}

void TestExportService::exportsEveryCallAndReadsTheProgramsBack()
{
    ExportService service(PythonRuntime::discover());
    QCOMPARE(service.state(), ExportService::WorkerState::NotStarted);
    QSignalSpy states(&service, &ExportService::stateChanged);
    QSignalSpy steps(&service, &ExportService::step);
    QSignalSpy environment(&service, &ExportService::environmentChanged);
    QSignalSpy finished(&service, &ExportService::finished);
    service.start(m_capture, m_inferred, request(m_dir.filePath(QStringLiteral("out.pt2"))),
                  PhasedExport::Options::from(ExportOptions{}));
    QVERIFY(service.isExporting());
    QCOMPARE(service.state(), ExportService::WorkerState::Exporting);
    QVERIFY(finished.wait(kTimeout));

    const PhasedExportOutcome outcome = finished.first().at(0).value<PhasedExportOutcome>();
    QVERIFY2(outcome.servesEveryCall(), qPrintable(outcome.summary()));
    QCOMPARE(outcome.programs.size(), 2);
    QCOMPARE(outcome.servedCalls(), (QVector<int>{0, 1, 2, 3, 4}));
    QVERIFY(!steps.isEmpty()); // the second program's phase is told
    QVERIFY(!environment.isEmpty());
    QVERIFY(!service.torchVersion().isEmpty());
    QCOMPARE(service.state(), ExportService::WorkerState::Idle);
    QVERIFY(!service.isExporting());
    QVERIFY(states.size() >= 2);

    // Every program read back, its dynamic dims named after the constraints it was
    // exported with.
    const QVector<ProgramReadBack> readBacks = finished.first().at(1).value<QVector<ProgramReadBack>>();
    QCOMPARE(readBacks.size(), 2);
    for (const ProgramReadBack &back : readBacks) {
        QVERIFY2(back.program, qPrintable(back.error));
        QVERIFY(back.mapping);
    }
    // The first program keeps the requested name; the phase's program goes beside it.
    QCOMPARE(outcome.programs.first().result.output, m_dir.filePath(QStringLiteral("out.pt2")));
    QVERIFY(QFile::exists(outcome.programs.at(1).result.output));
}

void TestExportService::cancelStopsTheWorker()
{
    ExportService service(PythonRuntime::discover());
    QSignalSpy finished(&service, &ExportService::finished);
    service.start(m_capture, m_inferred, request(m_dir.filePath(QStringLiteral("cancelled.pt2"))),
                  PhasedExport::Options::from(ExportOptions{}));
    service.cancel();
    if (finished.isEmpty())
        QVERIFY(finished.wait(kTimeout));
    QVERIFY(finished.first().at(0).value<PhasedExportOutcome>().cancelled);
    QCOMPARE(service.state(), ExportService::WorkerState::NotStarted);
    QVERIFY(!service.isExporting());
    QVERIFY(!service.client()->isWorkerRunning());
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("cancelled.pt2"))));
}

DIMSCOPE_GUILESS_TEST_MAIN(TestExportService)
#include "tst_exportservice.moc"
