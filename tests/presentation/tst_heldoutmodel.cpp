// SPDX-License-Identifier: GPL-3.0-or-later
// The held-out calls' table (HeldOutModel) on a worker answer as the protocol sends it
// (docs/worker-protocol.md, "Held-out calls"), checked by QAbstractItemModelTester
// while it fills: which program served each call, each program's guard for a call
// none serves, and the colour only where something is wrong.
#include "deterministictestmain.h"
#include "models/heldoutmodel.h"

#include "export/heldoutreplay.h"

#include <QAbstractItemModelTester>
#include <QJsonDocument>
#include <QTest>

using namespace dimscope;

namespace {

// Three calls of other.safetensors through two programs: call 0 by model, call 1 by
// phase2 after model refused it, call 2 by neither, call 3 served with other outputs.
HeldOutReplay sampleReplay()
{
    const QByteArray json = R"({"file": "/w/other.safetensors", "programs": ["model", "phase2"], "seconds": 4.2,
      "calls": [
        {"call": 0, "status": "served", "program": "model", "max_abs": 0.0, "max_rel": 0.0, "message": null, "rejections": []},
        {"call": 1, "status": "served", "program": "phase2", "max_abs": 2.5e-7, "max_rel": 1e-6, "message": null,
         "rejections": [{"program": "model", "guard": "x.size()[0] == 2", "message": "RuntimeError: Expected input at *args[0].shape[0] to be equal to 2, but got 5"}]},
        {"call": 2, "status": "rejected", "program": null, "message": "rejected by every program",
         "rejections": [{"program": "model", "guard": "x.size()[0] == 2", "message": "RuntimeError: ... 2, but got 3"},
                        {"program": "phase2", "guard": "x.size()[0] == 5", "message": "RuntimeError: ... 5, but got 3"}]},
        {"call": 3, "status": "wrong", "program": "phase2", "max_abs": 0.25, "message": "outputs differ from the eager model at output[0]", "rejections": []}]})";
    return HeldOutReplay::fromJson(QJsonDocument::fromJson(json).object());
}

QString cell(const HeldOutModel &m, int row, int column, int role = Qt::DisplayRole)
{
    return m.index(row, column).data(role).toString();
}

} // namespace

class TestHeldOutModel : public QObject
{
    Q_OBJECT
private slots:
    void eachCallSaysWhichProgramServedIt()
    {
        HeldOutModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setReplay(sampleReplay());
        QCOMPARE(model.rowCount(), 4);
        QCOMPARE(cell(model, 0, HeldOutModel::StatusColumn), QStringLiteral("served"));
        QCOMPARE(cell(model, 0, HeldOutModel::ProgramColumn), QStringLiteral("model"));
        QCOMPARE(cell(model, 1, HeldOutModel::ProgramColumn), QStringLiteral("phase2"));
        QCOMPARE(cell(model, 1, HeldOutModel::MaxAbsColumn), QStringLiteral("2.5e-07"));
        // A program tried first and refusing is in the tooltip, not an error.
        QVERIFY(cell(model, 1, HeldOutModel::StatusColumn, Qt::ToolTipRole).contains(QLatin1String("Program model rejected it")));
        QVERIFY(!model.index(1, HeldOutModel::StatusColumn).data(Qt::ForegroundRole).isValid());
        QVERIFY(model.index(1, 0).data(Qt::UserRole).toBool());
    }

    void aCallNoProgramTakesNamesEachGuard()
    {
        HeldOutModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setReplay(sampleReplay());
        QCOMPARE(cell(model, 2, HeldOutModel::StatusColumn), QStringLiteral("rejected by every program"));
        QCOMPARE(cell(model, 2, HeldOutModel::ProgramColumn), QString());
        QCOMPARE(cell(model, 2, HeldOutModel::DetailColumn), QStringLiteral("model: x.size()[0] == 2; phase2: x.size()[0] == 5"));
        QVERIFY(model.index(2, HeldOutModel::StatusColumn).data(Qt::ForegroundRole).isValid());
        QVERIFY(!model.index(2, 0).data(Qt::UserRole).toBool());
    }

    void aWrongCallIsLoud()
    {
        HeldOutModel model;
        model.setReplay(sampleReplay());
        QCOMPARE(cell(model, 3, HeldOutModel::StatusColumn), QStringLiteral("WRONG outputs"));
        QCOMPARE(cell(model, 3, HeldOutModel::DetailColumn), QStringLiteral("outputs differ from the eager model at output[0]"));
        QVERIFY(model.index(3, HeldOutModel::StatusColumn).data(Qt::ForegroundRole).isValid());
    }

    void clearEmptiesTheTable()
    {
        HeldOutModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setReplay(sampleReplay());
        model.clear();
        QCOMPARE(model.rowCount(), 0);
        QVERIFY(model.replay().isEmpty());
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestHeldOutModel)
#include "tst_heldoutmodel.moc"
