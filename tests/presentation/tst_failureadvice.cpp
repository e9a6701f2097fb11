// SPDX-License-Identifier: GPL-3.0-or-later
// FailureAdvice: the export failure page's "What to do" line, by the failure's kind.
#include "text/failureadvice.h"

#include "deterministictestmain.h"

using namespace dimscope;

class TstFailureAdvice : public QObject
{
    Q_OBJECT
private slots:
    void saveFailures();
    void fixesAreTheAdvice();
};

// A full disk and torch's serializer are both save_failed; only the first is about the file.
void TstFailureAdvice::saveFailures()
{
    const QString disk = FailureAdvice::forFailure(
        WorkerFailure::make(QStringLiteral("save_failed"), QStringLiteral("cannot save /tmp/out.pt2: No space left on device")));
    QVERIFY(disk.contains(QLatin1String("Choose another output")));
    // The worker's message for Falcon's vmap mask before dimscope built it without vmap (issue 20).
    const QString serializer = FailureAdvice::forFailure(WorkerFailure::make(
        QStringLiteral("save_failed"),
        QStringLiteral("cannot save /tmp/falcon.pt2: torch could not write the archive (Failed serializing node "
                       "flat_apply in graph: %flat_apply : [num_users=2] = call_function[target=torch.ops.higher_order.flat_apply]"
                       "(args = (%function_const_func_spec0, %torch__dynamo__trace_wrapped_higher_order_op_mod_index0, "
                       "torch._dynamo._trace_wrapped_higher_order_op.ModIndex, ...))")));
    QVERIFY2(serializer.contains(QLatin1String("cannot save the program")), qPrintable(serializer));
    QVERIFY(serializer.contains(QLatin1String("another output file will not help")));
    QVERIFY(!serializer.contains(QLatin1String("free space")));
}

void TstFailureAdvice::fixesAreTheAdvice()
{
    WorkerFailure f = WorkerFailure::make(QStringLiteral("constraint_violation"), QStringLiteral("Constraints violated (x)!"));
    f.fixes = QStringList{QStringLiteral("x = 4")};
    QVERIFY(FailureAdvice::forFailure(f).isEmpty());
}

DIMSCOPE_GUILESS_TEST_MAIN(TstFailureAdvice)
#include "tst_failureadvice.moc"
