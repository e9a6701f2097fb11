// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "project/projectfile.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QVector>

namespace dimscope {

// The parameters of one export (the worker's `export` request).
struct ExportRequest {
    QString model;       // model reference; empty: the model the worker has loaded
    QString capture;     // capture file
    QJsonObject spec;    // dimscope.dynamic_shapes document
    QString output;      // .pt2 path, written atomically
    QString device = QStringLiteral("cpu"); // cpu | cuda
    bool strict = false;
    int call = -1;       // example call; -1: the first whose dynamic dims are all >= 2
    QVector<int> calls;  // the calls this program serves (a phase); empty: every call
    // Inputs the calls had only substituted (value_if_missing): exported and replayed
    // without them (SubstitutedInputs).
    QStringList withoutInputs;
    bool verify = true;  // replay every captured call through the exported program
    bool reload = false; // reload the model even when the same reference is loaded
    // Program `archiveProgram` of the PT2 archive `archivePath` ("model" first, then
    // "phase2", ...), beside the programs the worker wrote there before, each weight
    // stored once; the worker writes `output` instead where its torch has no PT2
    // archive (< 2.8). Empty: `output`, a file of its own.
    QString archivePath;
    QString archiveProgram;
    // A second capture of the same model whose calls are replayed through the programs
    // in their fresh-process check (--verify-with; docs/worker-protocol.md, "Held-out
    // calls"): sent with an export that writes a file of its own; a phased export sends
    // it once, with write_archive, so that every program of the archive is tried.
    QString heldOut;
    // Probe every Dim's declared range with synthesized calls after verification
    // (dimscope-cli export --probe; docs/worker-protocol.md, "Range probes").
    bool probe = false;
    // The largest size probed for a Dim without a max (--probe-cap; the request's
    // probe_cap); 0: the worker's default (max_position_embeddings, else 4x the largest
    // recorded size).
    qint64 probeCap = 0;
    // Trace with torch.export.draft_export (torch 2.7+): the fix loop's route past
    // data-dependent model code (docs/worker-protocol.md, "Draft export").
    bool draftExport = false;

    QJsonObject toParams() const;
    // The request both front ends send: the model, the capture file, the .pt2 to
    // write and the user's export options (device, strictness, example call). The
    // spec is added per round by whoever runs it (PhasedExport, FixLoop, the CLI).
    static ExportRequest make(const QString &model, const QString &capture, const QString &output,
                              const ExportOptions &options);
    // "model" for the first program of an archive, "phaseN" for the N-th (N from 2).
    static QString programName(int n);
};

} // namespace dimscope
