// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"
#include "constraints/constraintset.h"
#include "constraints/dimdecl.h"

#include <QString>
#include <QVector>

#include <optional>

namespace dimscope {

// When one exported program cannot serve every captured call (generate()'s prefill and
// decode steps under SDPA, a vision-language model's first call with images), dimscope
// exports a program per phase: a group of calls, each group replayed through its own
// program. These are the widget-free pieces both front ends use to form the phases.
namespace ExportPhases {

// The capture restricted to `calls` (indices into capture.calls), renumbered 0..n-1 in
// that order, so inference and spec emission see only that phase.
Capture subset(const Capture &capture, const QVector<int> &calls);

// Splits `calls` into groups that one program can plausibly serve: the same input
// structure (leaf paths and ranks), and for every dimension that varies among them
// the same size class (0, 1, or >= 2: torch specializes 0 and 1). Groups keep call
// order and are ordered by their first call. With `declared`, a dim of a Dim it declares
// from 0 or 1 puts its calls at 1 with those at >= 2 (one program serves both).
QVector<QVector<int>> split(const Capture &capture, const QVector<int> &calls,
                            const ConstraintSet *declared = nullptr);

// What sets the phase apart, for messages: the leaf dims that vary over the whole
// capture but are constant within `calls` ("past_key_values.key_cache[0] dim 2 = 0"),
// at most `limit` of them, or the inputs only these calls pass.
QString describe(const Capture &capture, const QVector<int> &calls, int limit = 3);

// One phase planned before the first trace: its calls (empty: every call, when one
// program can serve them all), what sets them apart and the constraints to export it with.
struct PlannedPhase {
    QVector<int> calls;
    QString description;
    ConstraintSet constraints;
    QString source; // where the constraints come from, for the log
    QString error;  // non-empty: the phase's constraints are unusable (inference errors)
};

// The phases of an export, decided before any torch.export: the capture's calls split
// by structure and torch's 0/1 boundary (split). One group, or one structure with a
// call whose every varying dim is >= 2 (a program traced from it may serve the calls
// on the 0/1 boundary too; later passes split what it rejects): one phase with `given`
// as is. Otherwise, when `given` is dimscope's proposal for the whole capture (`proposal`,
// nothing edited), each phase gets the constraints inferred from its own calls (a
// decode phase then has total_len = past_len + 1, which every decode call satisfies);
// when the user changed it, each phase keeps the user's constraints and only a Dim
// that sits at 0 or 1 in every call of the phase becomes static there (torch
// specializes it; the phase is defined by it), so no edit is dropped. Phases with the
// most calls first (they keep OUT.pt2), then by their first call.
QVector<PlannedPhase> plan(const Capture &capture, const ConstraintSet &given, const ConstraintSet &proposal);

// The relation `dim = a * root + b` (root another root Dim of `set`, a >= 1) that every
// call of `capture` using `dim` satisfies, with root taking at least two values among
// them (one value proves nothing); nullopt when none. `dim` must be a root Dim.
std::optional<DimDecl> derivedRelation(const Capture &capture, const ConstraintSet &set, const QString &dim);

// The size of Dim `dim` (through the leaf dims `set` assigns it) in each call of
// `capture`: -1 where the call has none of them, -2 where they disagree.
QVector<qint64> valuesOfDim(const Capture &capture, const ConstraintSet &set, const QString &dim);

// "0, 4" / "1-3, 5-7"
QString callsText(const QVector<int> &calls);

// OUT.pt2 for the first phase, OUT.phaseN.pt2 (N from 2) for the others.
QString outputPath(const QString &output, int phase);

} // namespace ExportPhases

} // namespace dimscope
