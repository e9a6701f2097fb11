// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/exportresult.h"
#include "constraints/constraintset.h"

#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

namespace dimscope {

// One exported program and the captured calls it serves (replayed, outputs compared).
struct ExportedProgram {
    ExportResult result;         // the round that exported it
    ConstraintSet constraints;   // what it was exported with (after applied fixes)
    QVector<int> calls;          // capture call indices it serves
    QString description;         // what sets its calls apart ("every call", "… dim 2 = 0")
    QStringList appliedFixes;    // torch's fixes the fix loop applied on the way
    QString constraintsSource;   // "inferred from its calls", "the user's constraints, with …"
    int traces = 0;              // torch.export calls made for it, the failed rounds included
    QStringList failedTraces;    // "round 1: constraint_violation", one per failed round
    // Not empty for a program exported from example calls the worker synthesized (the
    // continuation program, issue 27 item 2): it serves none of the captured calls
    // (`calls` is empty); this says which calls it was verified on instead.
    QString synthesized;
    // Where its constraints ended narrower than those its export started from
    // (ProgramNarrowing): "pixel_values dim 0 is 2 only (asked: batch [2, oo])".
    QStringList narrowed;
    // Sizes it takes only as recorded, since no recorded call varied them (UnvariedSizes):
    // "attention_mask['sliding_attention'] dim 3, … are 8 in every recorded call, …".
    QStringList unvaried;
    // Inputs every call it serves had only substituted (value_if_missing; the calls passed
    // none): it was exported and its calls replayed without them (SubstitutedInputs).
    QStringList withoutInputs = {};

    // "0-3, 5" or, for a synthesized program, "none recorded (…)".
    QString callsText() const;
};

// Everything one export produced (PhasedExport): the programs, the calls none serves,
// and the last round of the first attempt (the program for every call, or the first
// planned phase), whose failure explains a program that could not be exported.
struct PhasedExportOutcome {
    QVector<ExportedProgram> programs;
    QVector<int> unserved;
    ExportResult firstAttempt;
    // Every round of every attempt in the order they ran: the fix loop's rounds before
    // an attempt's last one too (their failures' explanations led to the fixes applied).
    QVector<ExportResult> rounds;
    int callCount = 0;
    bool cancelled = false;
    // torch.export calls over the whole run (a phase that exported nothing included) and
    // each failed one, named "calls 1-3, 5-7 round 1: constraint_violation".
    int traces = 0;
    QStringList failedTraces;
    // The archive written once at the end (PhasedExport::finish): how many new
    // interpreters checked its programs (1, or 2 when one was left out and the rest
    // checked again), the programs left out of it, "program phase2 (calls 3-4): why",
    // and why nothing was written when the write failed (its calls are then unserved).
    int freshInterpreters = 0;
    QStringList leftOut;
    WorkerFailure writeFailure;
    // The held-out capture's calls (--verify-with), replayed through the programs in the
    // new interpreter that checked them, or why they were not.
    HeldOutReplay heldOut;

    bool servesEveryCall() const { return !programs.isEmpty() && unserved.isEmpty(); }
    // The calls served, over all programs, in capture order.
    QVector<int> servedCalls() const;
    // The calls no program can be verified on, in capture order: in some round the model
    // gave other outputs on the rebuilt call than those recorded at capture time (the
    // worker's status `rebuilt_differs`, docs/worker-protocol.md).
    QVector<int> rebuiltDiffer() const;
    // "every captured call (8) replays through its 2 programs",
    // "calls 0, 4 (2 of 8) are served by no exported program", "export cancelled"; the
    // unserved calls whose rebuilt call differs from the recording are named with why.
    QString summary() const;
    // "2 torch.export calls for 2 programs, none failed",
    // "3 torch.export calls for 2 programs; failed: calls 1-3, 5-7 round 1: constraint_violation".
    QString tracesText() const;
    // Program i as the CLI and the window name it: its file, and its name in the file
    // where the file holds several programs ("llama.pt2, program phase2"; `fileName`:
    // the file's name without its folder).
    QString programText(int i, bool fileName = false) const { return programText(programs, i, fileName); }
    static QString programText(const QVector<ExportedProgram> &programs, int i, bool fileName = false);
};

} // namespace dimscope

Q_DECLARE_METATYPE(dimscope::PhasedExportOutcome)
