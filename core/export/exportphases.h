// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"

#include <QString>
#include <QVector>

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
// order and are ordered by their first call.
QVector<QVector<int>> split(const Capture &capture, const QVector<int> &calls);

// What sets the phase apart, for messages: the leaf dims that vary over the whole
// capture but are constant within `calls` ("past_key_values.key_cache[0] dim 2 = 0"),
// at most `limit` of them, or the inputs only these calls pass.
QString describe(const Capture &capture, const QVector<int> &calls, int limit = 3);

// "0, 4" / "1-3, 5-7"
QString callsText(const QVector<int> &calls);

// OUT.pt2 for the first phase, OUT.phaseN.pt2 (N from 2) for the others.
QString outputPath(const QString &output, int phase);

} // namespace ExportPhases

} // namespace dimscope
