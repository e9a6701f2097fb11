// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "capture/capture.h"
#include "export/exportrequest.h"
#include "export/phasedexportoutcome.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QTemporaryDir>
#include <QVector>

#include <memory>

namespace dimscope {

class ExportClient;
class FixLoop;

// The export pipeline both front ends run (the CLI's `export`, the GUI's Export on
// CPU/CUDA). With `phases`, the calls are split into phases before the first trace
// (ExportPhases::plan: by structure and torch's 0/1 boundary), each exported with its
// own constraints (inferred from its calls, or the user's edited ones narrowed to the
// phase), so that the common case (generate()'s prefill and decode) needs one
// torch.export per program; one phase for calls of one structure. With `fixLoop`,
// torch's suggested fixes are applied to a copy of the constraints and the export
// retried (FixLoop), preferring a relation every call of the phase satisfies over a
// suggested minimum. Calls no program serves yet are split again in later passes,
// until every call is served or a pass serves nothing new. The programs are one PT2
// archive, OUT.pt2, with the weights stored once (programs "model", "phase2", ...;
// torch >= 2.8), or, with `separatePrograms` or an older torch, OUT.pt2 and
// OUT.phaseN.pt2, one file each. The worker keeps an archive's programs until the
// run ends; then the archive is written once, with the programs that serve calls, and
// checked in one new interpreter (writeArchive); a program that fails there is left
// out and its calls become unserved. Before that, with `continuation`, the worker
// synthesizes the example calls of a continuation program (requestContinuation), which
// is exported and verified on them like a phase and written into the same archive. A call is never dropped silently: the
// outcome lists the calls no program serves, and counts the torch.export calls.
// Asynchronous; one run at a time.
class PhasedExport : public QObject
{
    Q_OBJECT
public:
    struct Options {
        bool fixLoop = true;  // apply torch's suggested fixes and export again
        bool phases = true;   // a program per phase (planned up front, then for calls still unserved)
        int maxRounds = 8;    // fix loop rounds per program
        int maxPasses = 4;    // splitting passes over the still unserved calls
        // One file per program instead of one PT2 archive of them all (ExportRequest::archivePath)
        bool separatePrograms = false;
        // With phases: when the programs of a decoder's generate() capture are exported
        // (several programs, the prefill's and the decode's), one more program for a chat
        // continuation (several new tokens on a non-empty cache), exported and verified
        // on example calls the worker synthesizes (issue 27 item 2; --no-continuation).
        bool continuation = true;

        // The user's choice (Export Options, --fix-loop, --separate-programs): both
        // steps, or neither; the programs' files.
        static Options from(const ExportOptions &options)
        {
            Options o;
            o.fixLoop = o.phases = options.fixLoop;
            o.separatePrograms = options.separatePrograms;
            return o;
        }
    };

    explicit PhasedExport(ExportClient *client, QObject *parent = nullptr);
    ~PhasedExport() override;

    // `base` carries the model, capture path, output, device, strictness and, when
    // >= 0, the example call of the first attempt; its spec, call and calls are set
    // per round. `constraints` are copied: the user's document is never changed.
    void start(const Capture &capture, const ConstraintSet &constraints, const ExportRequest &base,
               const Options &options);
    bool isRunning() const { return m_running; }
    // Stops after the current round (a cancelled worker request ends it at once).
    void stop();
    const PhasedExportOutcome &outcome() const { return m_outcome; }

signals:
    // attempt: 1, 2, … per phase (calls empty: every call).
    void attemptStarted(int attempt, const QVector<int> &calls, const QString &description,
                        const dimscope::ConstraintSet &constraints);
    void attemptSkipped(int attempt, const QVector<int> &calls, const QString &why);
    void roundStarted(int attempt, int round);
    void roundFinished(int attempt, int round, const dimscope::ExportResult &result);
    // `unapplied`: "line (reason)"; `constraints`: the copy after applying.
    void fixesApplied(int attempt, int round, const QStringList &applied, const QStringList &unapplied,
                      const dimscope::ConstraintSet &constraints, bool changed);
    void attemptFinished(int attempt, bool exported, const QString &why);
    // The attempt's rounds from `round` + 1 on trace with torch.export.draft_export
    // (FixLoop::draftExportStarted; round 0: from its first, as an earlier attempt needed it).
    void draftExportStarted(int attempt, int round, const QString &why);
    void finished(const dimscope::PhasedExportOutcome &outcome);

private:
    struct Attempt {
        QVector<int> calls;   // empty: every call
        QString description;
        ConstraintSet constraints;
        QString output;
        int exampleCall = -1; // in `calls` (every call when empty); -1: chosen from the constraints
        QString source;       // where the constraints come from
        bool synthetic = false; // on m_synthetic's calls (the continuation), not the capture's
        QStringList withoutInputs = {}; // substituted in every call: exported and replayed without (runAttempt)
    };

    void runNext();
    void runAttempt(const Attempt &attempt);
    void onAttemptFinished(bool success, const QString &why);
    void planPhases(const ConstraintSet &constraints);
    void planNextPass();
    Capture servedAsExported(const QVector<int> &served) const;
    QStringList preferRelations(const QStringList &fixes, QStringList *rest);
    void finish();
    bool writeArchive();
    QString heldOutSkipped() const;
    void onArchiveWritten(int id, const QJsonObject &result);
    void onArchiveFailed(int id, const WorkerFailure &failure);
    void dropHeldPrograms();
    bool requestContinuation();
    void onContinuationSynthesized(int id, const QJsonObject &result);
    void onContinuationFailed(int id, const WorkerFailure &failure);
    void skipContinuation(const QString &why);
    bool apply(const QStringList &fixes, QString *error);
    QStringList splitSharedDims(const QStringList &fixes, QStringList *rest, QString *error);
    QStringList rejoinSplitDims(const QStringList &fixes);

    QPointer<ExportClient> m_client;
    FixLoop *m_loop = nullptr;
    Capture m_capture;
    ExportRequest m_base;
    Options m_options;
    QVector<Attempt> m_queue;
    Attempt m_current;
    ConstraintSet m_currentAsked; // m_current's constraints before the fix loop changed them
    Capture m_currentCapture; // m_capture restricted to the current attempt's calls
    int m_currentExampleCall = 0; // in m_currentCapture
    QStringList m_currentFixes;
    QStringList m_splitDims; // Dims of the current attempt already split per input
    QHash<QString, QStringList> m_justSplit; // split in the last round: Dim -> its new Dims
    QHash<QString, QString> m_minimumNotes;  // fix line -> why its minimum won over a relation
    QHash<QString, QString> m_fixNotes;      // fix line dimscope derived (a guard torch gave no fix for) -> why
    int m_attempt = 0;
    int m_pass = 0;
    int m_servedBeforePass = 0;
    QVector<QPair<QVector<int>, ConstraintSet>> m_tried; // each attempt's calls and constraints
    bool m_running = false;
    // An attempt stopped on data-dependent code: the later ones trace with draft_export at once.
    QString m_draftExportSince;
    bool m_stopRequested = false;
    bool m_archiveWritten = false; // the run's one write_archive request was sent (or is not needed)
    int m_writeRequest = -1;       // its id while it runs
    bool m_continuationTried = false; // synthesize_continuation was sent (or is not needed)
    int m_continuationRequest = -1;   // its id while it runs
    std::unique_ptr<QTemporaryDir> m_syntheticDir; // the synthesized calls' capture file, for this run
    Capture m_synthetic;             // the continuation's example calls
    QString m_syntheticPath;
    QString m_syntheticText;         // "3 calls synthesized from call 4: 2 + 6, … tokens (cached + new)"
    PhasedExportOutcome m_outcome;
};

} // namespace dimscope
