// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/heldoutreplay.h"
#include "export/rangeprobes.h"

#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace dimscope {

// Parsed answers of the export worker (docs/worker-protocol.md). Plain values.

struct ViolationSource {
    QString source; // torch's text, e.g. L['args'][1]['x'].size()[0]
    QString path;   // the leaf key path, e.g. "x"
    int dim = -1;
    QString dimName; // the spec's Dim at that dim, when the worker knows it
    // "x dim 1 (seq_len)": the leaf dim in key path and Dim name (torch's text when
    // the worker could not read it).
    QString toText() const;
};

struct SourceLocation {
    QString file;
    int line = 0;
    QString function;
    QString code;
    bool isValid() const { return !file.isEmpty(); }
    // "FILE:LINE in FUNCTION: CODE"
    QString toText() const;
    static SourceLocation fromJson(const QJsonObject &o);
    // {file, line, function, code}; {} when invalid.
    QJsonObject toJson() const;
};

// One frame of the model's code at a shape decision: library frames (torch,
// transformers, anything installed) are marked so that views can fold them.
struct StackFrame {
    SourceLocation location;
    bool library = false;
};

// Why torch made a Dim what it is (docs/worker-protocol.md, "explanations"): a fact
// torch recorded while tracing the model, tied to the model's line that caused it.
struct ShapeExplanation {
    QString kind;            // specialized, range_narrowed, equality, guard; assumption (draft export)
    QString expression;      // in Dim names: "seq_len == 4", "n <= 16", "dx == dy"
    QString torchExpression; // torch's: "Eq(s27, 4)"
    QStringList dims;        // the Dim names (or LEAF.size(D) for unnamed dims) involved
    std::optional<qint64> value; // specialized: the constant
    QString reason;          // specialized: torch's reason, e.g. range_refined_to_singleton
    QVector<ViolationSource> sources; // the input leaves and dims
    SourceLocation location; // the user's line; invalid when torch gave none (0/1 at input)
    QVector<StackFrame> stack; // outermost first, ending at `location`
    // assumption: the program's runtime assertion that checks it; empty when torch put none in.
    QString assertion;

    // "specialized" -> "specialized", "range_narrowed" -> "range narrowed"
    QString kindText() const;
    // "FILE:LINE: KIND: EXPRESSION" (compiler style; "KIND: EXPRESSION (at the inputs)"
    // without a location), then the code line indented on its own line.
    QString toText() const;
    static ShapeExplanation fromJson(const QJsonObject &o);
    static QVector<ShapeExplanation> listFromJson(const QJsonValue &v);
    // As the worker protocol writes it (sources without dim_name; a null location
    // when torch gave none).
    QJsonObject toJson() const;
    // Those that involve the Dim `name`.
    static QVector<ShapeExplanation> about(const QVector<ShapeExplanation> &all, const QString &name);
};

// One violation line of a constraint_violation failure, as the worker parsed it. (Not
// constraints/constraintviolation.h's ConstraintViolation, which is a capture-vs-constraints finding.)
struct WorkerViolation {
    QString text;
    QString kind;      // constant, range, equal, derived, dynamic_specialized, guard
    QStringList dims;  // Dim names the line mentions
    QVector<ViolationSource> sources;
    SourceLocation source; // torch 2.8+ (strict): the user's line that specialized it

    // "x dim 0 (dx), y dim 0 (dy)": each leaf dim the line is about once, as
    // ViolationSource::toText names it (the GUI's Leaf dims column, the CLI's line).
    QString leafDimsText() const;
};


// A failed request: what the worker said went wrong, or what the client saw
// (worker_crashed, worker_silent, protocol, timeout, cancelled, worker_start).
struct WorkerFailure {
    QString kind;
    QString message;
    QString traceback;   // the user's traceback where it matters (model import), else torch's
    QString raw;         // the exception text as torch wrote it
    QStringList names;   // constraint violations: the Dim names torch lists
    QVector<WorkerViolation> violations;
    QStringList fixes;   // suggested fix lines, in torch's order
    QString hint;
    QString typeName;    // unregistered_pytree: the class
    QString expression;  // data_dependent: the guarded expression
    SourceLocation source;
    QString path;        // structure_mismatch: where
    QVector<ShapeExplanation> explanations; // torch's shape decisions before it failed
    QJsonObject json;    // everything, as received

    bool isValid() const { return !kind.isEmpty(); }
    bool hasFixes() const { return !fixes.isEmpty(); }
    static WorkerFailure fromJson(const QJsonObject &error);
    static WorkerFailure make(const QString &kind, const QString &message);
    // Several lines for a terminal or a message box.
    QString toText() const;
};

struct OutputDiff {
    QString path;
    double maxAbs = 0;
    double maxRel = 0;
    bool ok = true;
    QString note; // shape or value mismatch
};

struct CallVerification {
    int call = 0;
    QString status; // ok, rejected, mismatch, eager_failed, rebuilt_differs
    QString message;
    // A rejection by one of the exported program's guards, in leaf dims:
    // "input_ids dim 1 == 1" (torch 2.14: `Guard failed: input_ids.size()[1] == 1`).
    QString guard;
    QVector<OutputDiff> outputs;
    bool ok() const { return status == QLatin1String("ok"); }
    // One line for tables: the guard that rejected the call, else the message's first line.
    QString note() const;
    // A row of the worker's `verification` (or its `batch_slice`).
    static CallVerification fromJson(const QJsonObject &row);
    double maxAbs() const;
    double maxRel() const;
};

struct RangeConstraint {
    QString symbol;
    std::optional<qint64> min;
    std::optional<qint64> max; // nullopt: unbounded
};

struct ProgramInput {
    QString name;
    QStringList shape; // sizes as text: "4", "s0", "s2 + 1"
};

// The worker's check that the saved program loads and runs in a new interpreter
// (docs/worker-protocol.md, "Fresh-process verification"), and the lines a user runs
// before a plain torch.export.load of it.
struct FreshProcessCheck {
    QString status;                 // "ok"; empty: the worker ran no check
    QString plainLoadStatus;        // "ok", or why plain torch.export.load failed
    QString plainLoadMessage;
    QStringList plainLoadRegistrations;

    static FreshProcessCheck fromJson(const QJsonObject &o);
    QJsonValue toJson() const; // null when no check ran
};

struct ExportResult {
    bool ok = false;      // exported, saved and every captured call replays
    bool exported = false; // the .pt2 was written (also when verification failed)
    QString output;
    QString program = QStringLiteral("model"); // the program's name in `output` (a PT2 archive may hold several)
    // Kept in the worker for the archive `output`, not written yet: the phased export
    // writes the archive once when it ends (ExportClient::writeArchive), then clears it.
    bool held = false;
    int exampleCall = -1;
    QString device;
    bool strict = false;
    bool modelReused = false;
    bool captureReused = false;
    QVector<CallVerification> verification;
    // Row 0 of the example call run through the program and the eager model, when the
    // program declares its batch from 1 (docs/worker-protocol.md, "Batch-1 slice"): a
    // synthesized call, not a recorded one, so neither in `verification` nor in `ok`.
    // status: empty (the worker sent none), "skipped" (message: why), or a row's status.
    CallVerification batchSlice;
    QString batchSliceDim;
    // The declared ranges probed with synthesized calls (the request's `probe`;
    // docs/worker-protocol.md, "Range probes"): reported, never part of `ok`.
    RangeProbes probes;
    QVector<RangeConstraint> ranges;
    QVector<ProgramInput> inputs;
    QJsonObject timings;
    FreshProcessCheck freshProcess;
    // Traced with torch.export.draft_export: its decisions are the `assumption` explanations.
    bool draftExport = false;
    // Inputs the program is keyed to by value (the worker's keyed_inputs: name -> the
    // recorded value as nested lists); each is also an `assumption` explanation.
    QJsonObject keyedInputs;
    // Inputs whose sizes the keyed values fix, traced static with them (keyed_static).
    QStringList keyedStatic;
    // Every input traced static because of keyed values: the keyed ones and keyedStatic.
    QStringList staticByKeys() const { return keyedInputs.keys() + keyedStatic; }
    // The request's held-out calls, replayed in that check (a file of its own only).
    HeldOutReplay heldOut;
    // torch's shape decisions in this export (on failure: those before it failed)
    QVector<ShapeExplanation> explanations;
    WorkerFailure failure; // set when !ok

    static ExportResult fromResult(const QJsonObject &result);
    static ExportResult fromFailure(const WorkerFailure &failure);
    // The verification table as text, one row per captured call.
    QString verificationTable() const;
    // One line on the batch-1 slice ("batch-1 slice of call 4 (...): ok, max abs 0"),
    // empty when the worker sent none.
    QString batchSliceText() const;
    // The same for the --json report (null when the worker sent none).
    QJsonValue batchSliceJson() const;
};

} // namespace dimscope

Q_DECLARE_METATYPE(dimscope::WorkerFailure)
Q_DECLARE_METATYPE(dimscope::ExportResult)
