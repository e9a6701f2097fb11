// SPDX-License-Identifier: GPL-3.0-or-later
// Benchmark of core/inference and core/constraints on a synthetic LLM-like capture built in memory:
// 64 layers x 2 cache tensors + 3 inputs per call, 256 calls (~33,500 tensor leaves).
// Reports full inference and full validation beside a plain pass over the same
// shapes, measured in the same run. Quick mode (default, for ctest) uses 8 layers x 16
// calls; DIMSCOPE_BENCH_FULL=1 (or --full) runs the full size.
#include "capture/capture.h"
#include "constraints/constraintvalidator.h"
#include "inference/shapeinference.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTextStream>

#include <algorithm>

using namespace dimscope;

namespace {

void addTensor(CallTree &t, int parent, const QString &path, const QVector<qint64> &shape)
{
    TreeNode n;
    n.kind = NodeKind::Tensor;
    n.parent = parent;
    n.leaf = t.leaves.size();
    t.nodes << n;
    t.nodes[parent].children << t.nodes.size() - 1;
    Leaf l;
    l.path = path;
    l.kind = NodeKind::Tensor;
    l.node = t.nodes.size() - 1;
    l.shape = shape;
    t.leaves << l;
}

int addContainer(CallTree &t, int parent, NodeKind kind, const QStringList &keys = {})
{
    TreeNode n;
    n.kind = kind;
    n.parent = parent;
    n.keys = keys;
    t.nodes << n;
    const int index = t.nodes.size() - 1;
    if (parent >= 0)
        t.nodes[parent].children << index;
    return index;
}

Capture makeCapture(int layers, int calls)
{
    Capture cap;
    for (const char *name : {"input_ids", "attention_mask", "position_ids", "past_key_values"}) {
        Parameter p;
        p.name = QString::fromLatin1(name);
        p.kind = QStringLiteral("POSITIONAL_OR_KEYWORD");
        cap.signature << p;
    }
    for (int c = 0; c < calls; ++c) {
        const qint64 batch = 2 + c % 3, seq = 2 + c % 5, past = 3 + c;
        CapturedCall call;
        call.index = c;
        CallTree &t = call.inputs;
        t.root = addContainer(t, -1, NodeKind::Dict,
                              {QStringLiteral("input_ids"), QStringLiteral("attention_mask"), QStringLiteral("position_ids"),
                               QStringLiteral("past_key_values")});
        addTensor(t, t.root, QStringLiteral("input_ids"), {batch, seq});
        addTensor(t, t.root, QStringLiteral("attention_mask"), {batch, past + seq});
        addTensor(t, t.root, QStringLiteral("position_ids"), {batch, seq});
        const int cache = addContainer(t, t.root, NodeKind::Custom, {QStringLiteral("key_cache"), QStringLiteral("value_cache")});
        for (const char *part : {"key_cache", "value_cache"}) {
            const int list = addContainer(t, cache, NodeKind::List);
            for (int l = 0; l < layers; ++l)
                addTensor(t, list, QStringLiteral("past_key_values.%1[%2]").arg(QLatin1String(part)).arg(l), {batch, 8, past, 64});
        }
        cap.calls << call;
    }
    return cap;
}

template<typename F>
double medianMs(int repeats, F f)
{
    QVector<double> times;
    for (int i = 0; i < repeats; ++i) {
        QElapsedTimer timer;
        timer.start();
        f();
        times << timer.nsecsElapsed() / 1e6;
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QTextStream out(stdout);
    const bool full = qEnvironmentVariableIntValue("DIMSCOPE_BENCH_FULL") == 1 || app.arguments().contains(QStringLiteral("--full"));
    const int layers = full ? 64 : 8, calls = full ? 256 : 16, repeats = full ? 15 : 5;
    const Capture cap = makeCapture(layers, calls);
    qint64 leaves = 0;
    for (const CapturedCall &c : cap.calls)
        leaves += c.inputs.leaves.size();
    out << "bench_shapes (" << (full ? "full" : "quick") << "): " << layers << " layers x 2 cache tensors + 3 inputs, " << calls
        << " calls, " << leaves << " tensor leaves\n";

    // Baseline: read every size of every leaf of every call once.
    qint64 sink = 0;
    const double plain = medianMs(repeats, [&] {
        for (const CapturedCall &c : cap.calls)
            for (const Leaf &l : c.inputs.leaves)
                for (qint64 v : l.shape)
                    sink += v;
    });
    InferenceResult result;
    const double table = medianMs(repeats, [&] { sink += ShapeTable(cap).dimRowCount(); });
    const double inference = medianMs(repeats, [&] { result = ShapeInference::infer(cap); });
    const ConstraintValidator validator(result.table);
    ValidationReport report;
    const double validation = medianMs(repeats * 4, [&] { report = validator.validate(result.constraints); });
    // An edited set that breaks on every call: the cost when violations are found.
    ConstraintSet broken = result.constraints;
    broken.setRange(QStringLiteral("past_len"), 2, 4);
    ValidationReport brokenReport;
    const double brokenValidation = medianMs(repeats * 4, [&] { brokenReport = validator.validate(broken); });

    out << QStringLiteral("  plain pass over all shapes      %1 ms  (baseline, sum %2)\n").arg(plain, 8, 'f', 3).arg(sink % 1000);
    out << QStringLiteral("  shape table build (once)        %1 ms  (%2x plain)\n").arg(table, 8, 'f', 3).arg(table / plain, 0, 'f', 2);
    out << QStringLiteral("  full inference (incl. table)    %1 ms  (%2x plain, target < 100 ms)\n").arg(inference, 8, 'f', 3).arg(inference / plain, 0, 'f', 2);
    out << QStringLiteral("  full validation                 %1 ms  (%2x plain, target < 16 ms)\n").arg(validation, 8, 'f', 3).arg(validation / plain, 0, 'f', 2);
    out << QStringLiteral("  validation with %1 violations %2 ms  (%3 kept)\n")
               .arg(brokenReport.total, 6)
               .arg(brokenValidation, 8, 'f', 3)
               .arg(brokenReport.violations.size());
    out << "  inferred dims: ";
    for (const DimDecl &d : result.constraints.dims())
        out << d.name << (d.isDerived() ? QStringLiteral("=") + d.relationText() : QString()) << " ";
    out << "\n";
    // The benchmark's own sanity: the inferred set holds, the broken one does not.
    if (!report.ok() || brokenReport.ok() || result.hasErrors()) {
        out << "FAILED: unexpected validation result\n";
        return 1;
    }
    return 0;
}
