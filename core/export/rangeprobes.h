// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace dimscope {

// One synthesized call of a range probe (docs/worker-protocol.md, "Range probes"): a
// recorded call with a Dim moved to `value` (and maybe others: movedWith), run through
// the program and the eager model.
struct RangeProbe {
    QString dim;
    qint64 value = 0;
    int call = -1;   // the recorded call it was made from
    QString status;  // served, rejected, mismatch, eager_failed, skipped
    QString guard;   // rejected: the guard ("input_ids.size()[1] > 1"), else torch's first line
    QString message; // torch's or the worker's whole text
    std::optional<double> maxAbs;
    // The other Dims the same call moved ({dim: size}): a program that serves several
    // Dims' sizes in one call is probed with fewer calls; empty: this Dim alone.
    QJsonObject movedWith;
    // rejected: the program of the same archive that serves it instead (write_archive's
    // `probes_elsewhere`, as a dispatcher would try them), and how ("served", "mismatch",
    // "eager_failed"); empty: none does, or it was not tried.
    QString servedBy;
    QString servedByStatus;
};

// What probing found for one Dim of a program: the range it declares, the sizes
// recorded, and which probed sizes the program served, rejected or got wrong.
struct ProbedDim {
    QString name;   // the constraints' Dim name, else torch's symbol
    QString symbol; // torch's symbol ("s11")
    QString where;  // an input size that is this Dim: "input_ids.size()[1]"
    qint64 declaredMin = 0;
    std::optional<qint64> declaredMax; // nullopt: unbounded
    QVector<qint64> recorded, probed, served, rejected, unverified, wrong;
    qint64 cap = 0;
    // Where the cap comes from: "config.max_position_embeddings" (a Dim that indexes
    // positions), "4x the largest recorded, N" (a batch-like Dim, or a model without the
    // config), "the request's probe_cap", or a sliding-window layer's length's rule.
    QString capSource;
    bool batchLike = false; // dim 0 of the batched inputs: not capped by positions
    QString follows; // a sliding-window layer's length: the Dim it follows (min(it, window - 1))
};

// The worker's `probes` of one exported program: its declared ranges probed with
// synthesized calls. Reported, never part of `ok`: probing does not change the program.
struct RangeProbes {
    bool present = false; // the worker probed (the request asked for it)
    QString skipped;      // why nothing was probed
    double seconds = 0;
    QVector<ProbedDim> dims;
    QVector<RangeProbe> probes;

    // One line per Dim: "seq_len (declared 1..oo): 2..20 served (cap 20: 4x the largest recorded, 5);
    // 1 rejected (input_ids.size()[1] > 1)" (the cap where the Dim declares no max).
    // Unescaped: torch's words (the printer escapes).
    QStringList summaryLines() const;
    int count(const QString &status) const;
    // write_archive's `probes_elsewhere` of this program: who serves its rejected probes.
    void applyElsewhere(const QJsonValue &entries);
    // A worker result's `probes` (absent: not present).
    static RangeProbes fromJson(const QJsonValue &v);
    // docs/cli.md, "export --json": a program's `probes` (null when none ran).
    QJsonValue toJson() const;
};

} // namespace dimscope
