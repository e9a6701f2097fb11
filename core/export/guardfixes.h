// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"
#include "constraints/constraintset.h"
#include "export/exportresult.h"

#include <QString>
#include <QStringList>
#include <QVector>

namespace dimscope {

// Fixes for a constraint violation where torch states its guards but suggests no fix
// (MPT's and GPT-Neo's `past_len - total_len + 1 <= 0` from transformers' masking_utils,
// OpenAI GPT's `seq_len != 256` once seq_len <= 256 was applied). From each guard torch
// recorded on a Dim it listed (the failure's explanations, in Dim names):
//  - on one root Dim: the range around the recorded values in which the guard holds,
//    when that is narrower than the Dim's (`seq_len = Dim('seq_len', max=255)`); for a
//    guard that holds throughout (torch could not decide it: GLM-MoE-DSA's
//    `Min(2048, seq_len) <= seq_len`), the range where each Max/Min in it takes one
//    argument (`max=2048`), the linear piece torch decides;
//  - on two root Dims: the relation every call of the phase satisfies
//    (ExportPhases::derivedRelation), when the guard holds under it across the root's
//    range (`total_len = past_len + 1`).
// A guard that some recorded call violates, or that cannot be read, gives nothing.
// Each fix is a line in torch's fix grammar, so the fix loop applies it like torch's.
namespace GuardFixes {

struct Fix {
    QString line; // e.g. "total_len = past_len + 1"
    QString note; // why: the guard, where the model states it, and what holds
};

// `names`: the Dims torch lists as violated (failure.names); `capture`: the phase's calls.
QVector<Fix> derive(const WorkerFailure &failure, const Capture &capture, const ConstraintSet &set);

} // namespace GuardFixes

} // namespace dimscope
