// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "inference/autodims.h"

#include <QString>
#include <QStringList>
#include <QVector>

namespace dimscope {

class ConstraintSet;
class ShapeTable;

// Two root Dims whose sizes are equal in every captured call that has both, and vary
// between calls: likely one Dim (torch would also find them equal and ask for
// `second = first`). Root Dims only: a derived Dim is already tied to its root.
struct MergeCandidate {
    QString first;  // in the order of the constraint set's Dims
    QString second;
    int calls = 0;  // the calls that have both
};

// One captured call as the example input of an export: each named Dim's size in it
// (then each Dim.AUTO group's, "seq_len (auto)"), and those that are 0 or 1 there
// (torch specializes those: traced with such a call, a Dim becomes a constant or the
// export fails, a Dim.AUTO dimension becomes a constant). The worker warns about the
// same dimensions (exporter.choose_example: every dynamic dim below 2).
struct ExampleCallHint {
    int call = 0;
    QVector<QPair<QString, qint64>> dimSizes; // Dims present in the call, in the set's order, then auto ones
    QStringList zeroOrOne;                    // "past_len = 0", "seq_len (auto) = 1"
    bool automatic = false;                   // chooseExampleCall's choice

    // "batch=2, q_len=5, past_len=0"
    QString sizesText() const;
};

// What to check before an export, from the constraints and the captured calls alone
// (no torch): Dims that may be one, and which call would be the example.
class ExportHints
{
public:
    // `autoDims`: the set's Dim.AUTO dimensions (AutoDims::find), counted like Dims for
    // their sizes of 0 or 1; never merge candidates.
    static ExportHints compute(const ShapeTable &table, const ConstraintSet &constraints,
                               const QVector<AutoDim> &autoDims = {});

    const QVector<MergeCandidate> &mergeCandidates() const { return m_merges; }
    const QVector<ExampleCallHint> &calls() const { return m_calls; }
    int automaticCall() const { return m_automatic; }

private:
    QVector<MergeCandidate> m_merges;
    QVector<ExampleCallHint> m_calls;
    int m_automatic = 0;
};

} // namespace dimscope
