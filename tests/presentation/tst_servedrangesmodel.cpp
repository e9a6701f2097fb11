// SPDX-License-Identifier: GPL-3.0-or-later
// The "Served ranges" table (ServedRangesModel) on the worker's range probes as the
// protocol sends them (docs/worker-protocol.md, "Range probes"), checked by
// QAbstractItemModelTester while it fills: a row per Dim of each program, the range
// served, each rejected size with its guard and the program that serves it instead, and
// the warning colour only where the declared range is not served whole.
#include "deterministictestmain.h"
#include "models/servedrangesmodel.h"

#include "export/rangeprobes.h"

#include <QAbstractItemModelTester>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace dimscope;

namespace {

// Program model: seq_len rejects 1 (phase2 serves it) and is wrong at 16; batch served
// whole. Program phase2: past_len served whole.
QVector<ServedRangesModel::ProgramProbes> samplePrograms()
{
    const QByteArray model = R"({"seconds": 0.5, "dims": [
        {"dim": "seq_len", "symbol": "s1", "declared": [1, null], "recorded": [4], "cap": 16,
         "cap_source": "4x the largest recorded value", "probed": [1, 2, 5, 16], "served": [2, 5], "rejected": [1],
         "unverified": [], "wrong": [16]},
        {"dim": "batch", "symbol": "s0", "declared": [1, 64], "recorded": [2], "cap": 64, "cap_source": "declared",
         "probed": [1, 3, 64], "served": [1, 3, 64], "rejected": [], "unverified": [], "wrong": []}],
      "probes": [
        {"dim": "seq_len", "value": 1, "call": 0, "status": "rejected", "guard": "input_ids.size()[1] > 1",
         "message": "AssertionError: Guard failed: input_ids.size()[1] > 1"},
        {"dim": "seq_len", "value": 2, "call": 0, "status": "served"},
        {"dim": "seq_len", "value": 5, "call": 0, "status": "served"},
        {"dim": "seq_len", "value": 16, "call": 0, "status": "mismatch", "message": "outputs differ"},
        {"dim": "batch", "value": 1, "call": 0, "status": "served"},
        {"dim": "batch", "value": 3, "call": 0, "status": "served"},
        {"dim": "batch", "value": 64, "call": 0, "status": "served"}]})";
    const QByteArray phase2 = R"({"seconds": 0.2, "dims": [
        {"dim": "past_len", "symbol": "s2", "declared": [0, null], "recorded": [0, 5], "cap": 20,
         "cap_source": "4x the largest recorded value", "probed": [1, 2, 6, 20], "served": [1, 2, 6, 20],
         "rejected": [], "unverified": [], "wrong": []}],
      "probes": [{"dim": "past_len", "value": 1, "call": 1, "status": "served"},
                 {"dim": "past_len", "value": 2, "call": 1, "status": "served"},
                 {"dim": "past_len", "value": 6, "call": 1, "status": "served"},
                 {"dim": "past_len", "value": 20, "call": 1, "status": "served"}]})";
    RangeProbes first = RangeProbes::fromJson(QJsonDocument::fromJson(model).object());
    first.applyElsewhere(QJsonArray{QJsonObject{{QStringLiteral("dim"), QStringLiteral("seq_len")},
                                                {QStringLiteral("value"), 1},
                                                {QStringLiteral("served_by"), QStringLiteral("phase2")},
                                                {QStringLiteral("status"), QStringLiteral("served")}}});
    return {{QStringLiteral("model"), first},
            {QStringLiteral("phase2"), RangeProbes::fromJson(QJsonDocument::fromJson(phase2).object())}};
}

QString cell(const ServedRangesModel &m, int row, int column, int role = Qt::DisplayRole)
{
    return m.index(row, column).data(role).toString();
}

} // namespace

class TestServedRangesModel : public QObject
{
    Q_OBJECT
private slots:
    void eachDimOfEachProgramIsARow()
    {
        ServedRangesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPrograms(samplePrograms());
        QCOMPARE(model.rowCount(), 3);
        QCOMPARE(cell(model, 1, ServedRangesModel::ProgramColumn), QStringLiteral("model"));
        QCOMPARE(cell(model, 1, ServedRangesModel::DimColumn), QStringLiteral("batch"));
        QCOMPARE(cell(model, 1, ServedRangesModel::DeclaredColumn), QStringLiteral("1..64"));
        QCOMPARE(cell(model, 1, ServedRangesModel::ServedColumn), QStringLiteral("1..64"));
        QCOMPARE(cell(model, 1, ServedRangesModel::RejectedColumn), QString());
        QVERIFY(!model.index(1, ServedRangesModel::ServedColumn).data(Qt::ForegroundRole).isValid());
        QVERIFY(model.index(1, 0).data(Qt::UserRole).toBool());
        QCOMPARE(cell(model, 2, ServedRangesModel::ProgramColumn), QStringLiteral("phase2"));
        QCOMPARE(cell(model, 2, ServedRangesModel::DeclaredColumn), QStringLiteral("0..∞"));
        QCOMPARE(cell(model, 2, ServedRangesModel::RecordedColumn), QStringLiteral("0, 5"));
        QCOMPARE(cell(model, 2, ServedRangesModel::ServedColumn), QStringLiteral("0..20"));
    }

    void aRejectedOrWrongSizeIsNamedAndLoud()
    {
        ServedRangesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPrograms(samplePrograms());
        QCOMPARE(cell(model, 0, ServedRangesModel::ServedColumn), QStringLiteral("2..5"));
        QCOMPARE(cell(model, 0, ServedRangesModel::RejectedColumn),
                 QStringLiteral("1 (input_ids.size()[1] > 1; served by phase2); 16 WRONG"));
        QVERIFY(model.index(0, ServedRangesModel::ServedColumn).data(Qt::ForegroundRole).isValid());
        QVERIFY(!model.index(0, 0).data(Qt::UserRole).toBool());
        QVERIFY(cell(model, 0, ServedRangesModel::ServedColumn, Qt::ToolTipRole)
                    .contains(QLatin1String("seq_len = 16: outputs differ")));
    }

    void clearEmptiesTheTable()
    {
        ServedRangesModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setPrograms(samplePrograms());
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestServedRangesModel)
#include "tst_servedrangesmodel.moc"
