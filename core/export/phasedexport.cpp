// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/phasedexport.h"

#include "export/dimsseenapart.h"
#include "export/programnarrowing.h"
#include "export/substitutedinputs.h"
#include "export/unvariedsizes.h"

#include "export/exportclient.h"
#include "export/exportphases.h"
#include "export/fixloop.h"
#include "export/guardfixes.h"
#include "export/unnameddims.h"
#include "constraints/dimsplit.h"
#include "spec/examplecall.h"
#include "spec/jsonspecemitter.h"
#include "inference/captureanalysis.h"
#include "inference/shapetable.h"
#include "export/suggestedfixapplier.h"
#include "capture/capturereader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QSet>

#include <algorithm>

namespace dimscope {

namespace {

QVector<int> servedBy(const ExportResult &r)
{
    QVector<int> served;
    if (!r.exported)
        return served;
    for (const CallVerification &v : r.verification) {
        if (v.ok())
            served << v.call;
    }
    return served;
}

// A Dim that is the sum of two others in every call (the continuation's mask length:
// total_len = past_len + seq_len) cannot be declared as a sum (torch's Dims take one
// root); its minimum is raised to theirs, as torch's fix would after a failed trace.
// Returns what was raised.
QStringList raiseSumMinimums(const Capture &calls, ConstraintSet *set)
{
    QVector<DimDecl> roots; // a copy: setRange changes the set
    QHash<QString, QVector<qint64>> values;
    for (const DimDecl &dim : set->dims()) {
        if (!dim.isDerived()) {
            roots << dim;
            values.insert(dim.name, ExportPhases::valuesOfDim(calls, *set, dim.name));
        }
    }
    const auto isSum = [&values](const QString &total, const QString &x, const QString &y) {
        const QVector<qint64> t = values.value(total), a = values.value(x), b = values.value(y);
        bool sum = !t.isEmpty() && a.size() == t.size() && b.size() == t.size();
        for (int c = 0; c < t.size() && sum; ++c)
            sum = t[c] >= 0 && a[c] >= 0 && b[c] >= 0 && t[c] == a[c] + b[c];
        return sum;
    };
    QStringList notes;
    for (const DimDecl &total : std::as_const(roots)) {
        bool raised = false;
        for (int i = 0; i < roots.size() && !raised; ++i) {
            for (int j = i + 1; j < roots.size() && !raised; ++j) {
                const DimDecl &x = roots[i], &y = roots[j];
                if (x.name == total.name || y.name == total.name || !isSum(total.name, x.name, y.name))
                    continue;
                const qint64 lowest = x.min.value_or(0) + y.min.value_or(0);
                raised = lowest > total.min.value_or(0) && set->setRange(total.name, lowest, total.max).isEmpty();
                if (raised)
                    notes << QStringLiteral("%1 from %2 (%1 = %3 + %4 in every call)").arg(total.name).arg(lowest)
                                 .arg(x.name, y.name);
            }
        }
    }
    return notes;
}

} // namespace

PhasedExport::PhasedExport(ExportClient *client, QObject *parent)
    : QObject(parent), m_client(client), m_loop(new FixLoop(client, this))
{
    connect(m_loop, &FixLoop::roundStarted, this, [this](int round) { emit roundStarted(m_attempt, round); });
    connect(m_loop, &FixLoop::roundFinished, this,
            [this](int round, const ExportResult &r) { emit roundFinished(m_attempt, round, r); });
    connect(m_loop, &FixLoop::finished, this, &PhasedExport::onAttemptFinished);
    connect(m_loop, &FixLoop::draftExportStarted, this, [this](int round, const QString &why) {
        m_draftExportSince = m_current.calls.isEmpty() ? QStringLiteral("every call")
                                                       : QStringLiteral("calls ") + ExportPhases::callsText(m_current.calls);
        emit draftExportStarted(m_attempt, round, why);
    });
    connect(client, &ExportClient::requestResult, this, [this](int id, const QString &, const QJsonObject &result) {
        onArchiveWritten(id, result);
        onContinuationSynthesized(id, result);
    });
    connect(client, &ExportClient::requestFailed, this, [this](int id, const QString &, const WorkerFailure &failure) {
        onArchiveFailed(id, failure);
        onContinuationFailed(id, failure);
    });
}

PhasedExport::~PhasedExport() = default;

void PhasedExport::start(const Capture &capture, const ConstraintSet &constraints, const ExportRequest &base,
                         const Options &options)
{
    Q_ASSERT(!m_running);
    m_capture = capture;
    m_base = base;
    m_options = options;
    m_queue.clear();
    m_outcome = PhasedExportOutcome{};
    m_outcome.callCount = int(capture.calls.size());
    m_attempt = 0;
    m_pass = 0;
    m_servedBeforePass = 0;
    m_tried.clear();
    m_draftExportSince.clear();
    m_stopRequested = false;
    m_archiveWritten = false;
    m_writeRequest = -1;
    m_continuationTried = false;
    m_continuationRequest = -1;
    m_syntheticDir.reset();
    m_synthetic = Capture{};
    m_syntheticPath.clear();
    m_running = true;
    planPhases(constraints);
    runNext();
}

// The phases before the first trace (ExportPhases::plan). Without phases, or when every
// call has one structure, one attempt for every call with the constraints as given.
void PhasedExport::planPhases(const ConstraintSet &constraints)
{
    const Attempt everyCall{{}, QStringLiteral("every call"), constraints, m_base.output, m_base.call,
                            QStringLiteral("the constraints given")};
    if (!m_options.phases) {
        m_queue.append(everyCall);
        return;
    }
    const InferenceResult proposal = CaptureAnalysis::infer(m_capture, InferenceOptions::defaultsFor(m_capture));
    const QVector<ExportPhases::PlannedPhase> phases = ExportPhases::plan(m_capture, constraints, proposal.constraints);
    if (phases.size() == 1 && phases.first().calls.isEmpty()) {
        m_queue.append(everyCall);
        return;
    }
    m_pass = 1; // the planned phases are the first pass
    for (const ExportPhases::PlannedPhase &phase : phases) {
        if (!phase.error.isEmpty()) {
            emit attemptSkipped(m_attempt, phase.calls, phase.error);
            continue;
        }
        // The example call asked for serves the phase it belongs to.
        m_queue.append(Attempt{phase.calls, phase.description, phase.constraints, {},
                               int(phase.calls.indexOf(m_base.call)), phase.source});
    }
}

void PhasedExport::stop()
{
    m_stopRequested = true;
    m_loop->stop();
}

void PhasedExport::runNext()
{
    if (m_stopRequested || m_outcome.cancelled) {
        finish();
        return;
    }
    if (m_queue.isEmpty())
        planNextPass();
    if (m_queue.isEmpty() && requestContinuation())
        return; // runNext runs again when the worker has answered
    if (m_queue.isEmpty()) {
        finish();
        return;
    }
    runAttempt(m_queue.takeFirst());
}

void PhasedExport::runAttempt(const Attempt &attempt)
{
    m_current = attempt;
    m_currentAsked = attempt.constraints;
    m_currentFixes.clear();
    m_splitDims.clear();
    m_justSplit.clear();
    ++m_attempt;
    m_currentCapture = attempt.synthetic ? m_synthetic
        : attempt.calls.isEmpty()        ? m_capture
                                         : ExportPhases::subset(m_capture, attempt.calls);
    // Inputs none of the attempt's calls passed (value_if_missing) are not fed to the model.
    m_current.withoutInputs = attempt.synthetic ? QStringList() : SubstitutedInputs::commonTo(m_currentCapture);
    m_currentCapture = SubstitutedInputs::without(m_currentCapture, m_current.withoutInputs);
    m_tried.append({attempt.calls, attempt.constraints});
    m_currentExampleCall = attempt.exampleCall >= 0 && attempt.exampleCall < m_currentCapture.calls.size()
                               ? attempt.exampleCall
                               : chooseExampleCall(ShapeTable(m_currentCapture), attempt.constraints);
    // The first program keeps OUT.pt2, the next ones OUT.phaseN.pt2 in the order they
    // serve; or they are programs "model", "phaseN" of the archive OUT.pt2.
    const int number = int(m_outcome.programs.size()) + 1;
    m_current.output = ExportPhases::outputPath(m_base.output, number);
    emit attemptStarted(m_attempt, attempt.calls, attempt.description, attempt.constraints);

    ExportRequest request = m_base;
    request.output = m_current.output;
    if (!m_options.separatePrograms) {
        request.archivePath = m_base.output;
        request.archiveProgram = ExportRequest::programName(number);
    }
    request.calls = attempt.calls;
    request.withoutInputs = m_current.withoutInputs;
    request.heldOut.clear(); // replayed once, through every program, when the archive is written
    if (attempt.synthetic)
        request.capture = m_syntheticPath;
    request.call = attempt.calls.isEmpty() ? m_currentExampleCall
                                           : attempt.calls.value(m_currentExampleCall, attempt.calls.first());
    m_loop->setMaxRounds(m_options.fixLoop ? m_options.maxRounds : 1);
    // The model's data-dependent code is the same in every phase: no plain trace that stops there again.
    request.draftExport = m_options.fixLoop && !m_draftExportSince.isEmpty();
    if (request.draftExport)
        emit draftExportStarted(m_attempt, 0, QStringLiteral("traced with torch.export.draft_export from the first "
                                                             "round: the export for %1 stopped on data-dependent code")
                                                  .arg(m_draftExportSince));
    auto spec = [this]() { return JsonSpecEmitter::document(m_currentCapture, m_current.constraints, m_currentExampleCall); };
    // Where torch states a guard but no fix: the range, or the relation every call of
    // the phase has, under which the guard holds (GuardFixes), noted for the log.
    // Where neither helps, the Dims torch names become Dim.DYNAMIC (UnnamedDims).
    auto guardFixes = [this](const ExportResult &failed) {
        QVector<GuardFixes::Fix> fixes = GuardFixes::derive(failed.failure, m_currentCapture, m_current.constraints);
        if (fixes.isEmpty())
            fixes = UnnamedDims::lastResort(failed.failure, m_current.constraints);
        QStringList lines;
        for (const GuardFixes::Fix &fix : std::as_const(fixes)) {
            lines << fix.line;
            m_fixNotes.insert(fix.line, fix.note);
        }
        return lines;
    };
    m_loop->start(request, spec, [this](const QStringList &fixes, QString *error) { return apply(fixes, error); }, guardFixes);
}

// A `NAME = INT` fix on a Dim that several inputs share splits the Dim per input the
// first time instead (DimSplit): the next round's fixes then specialize only the input
// whose code needs the constant. Returns the applied split notes; *rest gets the other fixes.
QStringList PhasedExport::splitSharedDims(const QStringList &fixes, QStringList *rest, QString *error)
{
    QStringList notes;
    for (const QString &line : fixes) {
        const SuggestedFix fix = ExportErrorParser::parseFix(line);
        const bool splittable = fix.kind == SuggestedFix::Kind::Specialize && !m_splitDims.contains(fix.name);
        const QStringList inputs = splittable ? DimSplit::inputsUsing(m_current.constraints, fix.name) : QStringList();
        if (inputs.size() < 2) {
            *rest << line;
            continue;
        }
        m_splitDims << fix.name;
        const QStringList created = DimSplit::splitByInput(&m_current.constraints, fix.name, error);
        if (!error->isEmpty())
            return {};
        m_justSplit.insert(fix.name, created);
        notes << QStringLiteral("%1 (split first: %2 is shared by %3; %4 now %5)")
                     .arg(line, fix.name, inputs.join(QStringLiteral(", ")), inputs.mid(1).join(QStringLiteral(", ")),
                          created.size() == 1 ? QString(QStringLiteral("has its own Dim, ") + created.first())
                                              : QString(QStringLiteral("have their own Dims, ") + created.join(QStringLiteral(", "))));
    }
    return notes;
}

// The round after a split names the inputs that need the constant. The split-off Dims
// no fix names go back into the Dim they came from (unless that one is specialized
// now): they were fine together with it, and one batch Dim is what the user expects.
QStringList PhasedExport::rejoinSplitDims(const QStringList &fixes)
{
    QStringList named, specialized;
    for (const QString &line : fixes) {
        const SuggestedFix fix = ExportErrorParser::parseFix(line);
        named << fix.name << fix.other;
        if (fix.kind == SuggestedFix::Kind::Specialize)
            specialized << fix.name;
    }
    QStringList notes;
    for (auto it = m_justSplit.cbegin(); it != m_justSplit.cend(); ++it) {
        if (specialized.contains(it.key()) || !m_current.constraints.dim(it.key()))
            continue;
        QStringList rejoined;
        for (const QString &part : it.value()) {
            if (!named.contains(part) && m_current.constraints.mergeDims(it.key(), part).isEmpty())
                rejoined << part;
        }
        if (!rejoined.isEmpty())
            notes << QStringLiteral("%1 rejoined %2 (torch did not need them apart)")
                         .arg(rejoined.join(QStringLiteral(", ")), it.key());
    }
    m_justSplit.clear();
    return notes;
}

// Before a suggested minimum (`NAME = Dim('NAME', min=M)`): when every call of the
// phase has NAME = a * ROOT + b and that relation keeps NAME >= M wherever torch traces
// ROOT (>= 2: torch specializes 0 and 1), the relation is applied instead (decode's
// total_len = past_len + 1 rather than total_len >= 3, which rejects the decode step
// after a 1-token prompt). Returns the notes of both choices; *rest gets the fixes
// still to apply.
QStringList PhasedExport::preferRelations(const QStringList &fixes, QStringList *rest)
{
    QStringList notes;
    for (const QString &line : fixes) {
        const SuggestedFix fix = ExportErrorParser::parseFix(line);
        const std::optional<DimDecl> relation = fix.kind == SuggestedFix::Kind::Range && fix.min
            ? ExportPhases::derivedRelation(m_currentCapture, m_current.constraints, fix.name)
            : std::nullopt;
        const DimDecl *root = relation ? m_current.constraints.dim(relation->root) : nullptr;
        if (!root) {
            *rest << line;
            continue;
        }
        const qint64 lowest = relation->a * std::max<qint64>(root->min.value_or(2), 2) + relation->b;
        const bool withinMax = !fix.max || (root->max && relation->a * *root->max + relation->b <= *fix.max);
        const QString holds = QStringLiteral("every call of this phase has %1 = %2").arg(fix.name, relation->relationText());
        if (lowest < *fix.min || !withinMax
            || !m_current.constraints.makeDerived(fix.name, relation->root, relation->a, relation->b).isEmpty()) {
            *rest << line;
            m_minimumNotes.insert(line, QStringLiteral("torch's minimum: %1, but that allows %2 = %3 < %4")
                                            .arg(holds, fix.name).arg(lowest).arg(*fix.min));
            continue;
        }
        notes << QStringLiteral("%1 = %2 (instead of %3: %4, which keeps %1 >= %5 for %6 >= %7)")
                     .arg(fix.name, relation->relationText(), line, holds)
                     .arg(lowest)
                     .arg(relation->root)
                     .arg(std::max<qint64>(root->min.value_or(2), 2));
    }
    return notes;
}

bool PhasedExport::apply(const QStringList &fixes, QString *error)
{
    const ConstraintSet before = m_current.constraints;
    m_minimumNotes.clear();
    const QStringList rejoins = rejoinSplitDims(fixes);
    QStringList unsplit, rest;
    const QStringList splits = rejoins + splitSharedDims(fixes, &unsplit, error);
    if (!error->isEmpty()) {
        m_current.constraints = before;
        return false;
    }
    const QStringList relations = preferRelations(unsplit, &rest);
    const SuggestedFixApplier::Result r = SuggestedFixApplier::apply(m_current.constraints, rest.join(QLatin1Char('\n')));
    QStringList applied = splits + relations, unapplied;
    for (const SuggestedFix &f : r.applied) {
        const QString note = m_minimumNotes.value(f.line, m_fixNotes.value(f.line, r.notes.value(f.line)));
        applied << (note.isEmpty() ? f.line : QStringLiteral("%1 (%2)").arg(f.line, note));
    }
    m_fixNotes.clear();
    for (const SuggestedFixApplier::Unapplied &u : r.unapplied)
        unapplied << QStringLiteral("%1 (%2)").arg(u.line, u.reason);
    const QString invalid = r.constraints.checkInvariants();
    if (!invalid.isEmpty()) {
        m_current.constraints = before;
        *error = invalid;
        return false;
    }
    const bool changed = r.constraints != before;
    m_current.constraints = r.constraints;
    m_currentFixes += applied;
    emit fixesApplied(m_attempt, int(m_loop->rounds().size()), applied, unapplied, m_current.constraints, changed);
    return changed;
}

void PhasedExport::onAttemptFinished(bool success, const QString &whyFinished)
{
    Q_UNUSED(success);
    QString why = whyFinished;
    const ExportResult last = m_loop->rounds().isEmpty() ? ExportResult{} : m_loop->rounds().last();
    m_outcome.rounds += m_loop->rounds();
    const int traces = int(m_loop->rounds().size());
    QStringList failed;
    for (int r = 0; r < traces; ++r) {
        if (!m_loop->rounds().at(r).ok)
            failed << QStringLiteral("round %1: %2").arg(r + 1).arg(m_loop->rounds().at(r).failure.kind);
    }
    m_outcome.traces += traces;
    const QString which = m_current.synthetic ? QStringLiteral("continuation")
        : m_current.calls.isEmpty()         ? QStringLiteral("every call")
                                            : QStringLiteral("calls ") + ExportPhases::callsText(m_current.calls);
    for (const QString &f : std::as_const(failed))
        m_outcome.failedTraces << QStringLiteral("%1 %2").arg(which, f);
    if (m_attempt == 1)
        m_outcome.firstAttempt = last;
    if (last.failure.kind == QLatin1String("cancelled"))
        m_outcome.cancelled = true;
    QVector<int> served = servedBy(last);
    // The continuation program serves no captured call: it is kept when every
    // synthesized call replays through it.
    const bool synthetic = m_current.synthetic;
    if (synthetic && served.size() < m_synthetic.calls.size()) {
        if (last.exported)
            why = QStringLiteral("the continuation program serves %1 of its %2 synthesized calls: left out (%3)")
                      .arg(served.size()).arg(m_synthetic.calls.size()).arg(why);
        served.clear();
    }
    if (!served.isEmpty())
        m_outcome.programs.append(ExportedProgram{last, m_current.constraints, synthetic ? QVector<int>() : served,
                                                  m_current.description, m_currentFixes, m_current.source, traces,
                                                  failed, synthetic ? m_syntheticText : QString(),
                                                  ProgramNarrowing::find(m_currentAsked, m_current.constraints,
                                                                         ShapeTable(synthetic ? m_currentCapture
                                                                                              : servedAsExported(served))),
                                                  UnvariedSizes::find(m_current.constraints, ShapeTable(m_capture)),
                                                  m_current.withoutInputs});
    // The log says how many traces this program took (the common case: one).
    emit attemptFinished(m_attempt, !served.isEmpty(),
                         QStringLiteral("%1 (torch.export calls: %2%3)")
                             .arg(why)
                             .arg(traces)
                             .arg(failed.isEmpty() ? QString() : QStringLiteral(", failed: ") + failed.join(QStringLiteral(", "))));
    runNext();
}

// The calls `served` as the current attempt exported them: without its substituted inputs.
Capture PhasedExport::servedAsExported(const QVector<int> &served) const
{
    return SubstitutedInputs::without(ExportPhases::subset(m_capture, served), m_current.withoutInputs);
}

// The calls no program serves yet, split into phases; nothing when phases are off,
// every call is served, or the previous pass served nothing new.
void PhasedExport::planNextPass()
{
    const QVector<int> served = m_outcome.servedCalls();
    if (!m_options.phases || served.size() == m_outcome.callCount || m_pass >= m_options.maxPasses)
        return;
    if (m_pass > 0 && served.size() == m_servedBeforePass)
        return;
    ++m_pass;
    m_servedBeforePass = int(served.size());
    QSet<int> done(served.begin(), served.end());
    // Another program cannot verify a call whose rebuilt inputs already differ from the recording.
    const QVector<int> differ = m_outcome.rebuiltDiffer();
    done.unite(QSet<int>(differ.begin(), differ.end()));
    QVector<int> remaining;
    for (int c = 0; c < m_outcome.callCount; ++c) {
        if (!done.contains(c))
            remaining << c;
    }
    const InferenceOptions inference = InferenceOptions::defaultsFor(m_capture);
    for (const QVector<int> &group : ExportPhases::split(m_capture, remaining)) {
        const Capture calls = ExportPhases::subset(m_capture, group);
        const InferenceResult inferred = CaptureAnalysis::infer(
            SubstitutedInputs::without(calls, SubstitutedInputs::commonTo(calls)), inference);
        if (inferred.hasErrors()) {
            emit attemptSkipped(m_attempt, group,
                                QStringLiteral("the constraints inferred from calls %1 are unusable: %2")
                                    .arg(ExportPhases::callsText(group),
                                         inferred.texts(InferenceMessage::Severity::Error).join(QStringLiteral("; "))));
            continue;
        }
        if (m_tried.contains(qMakePair(group, inferred.constraints)))
            continue; // the same calls with the same constraints failed already
        m_queue.append(Attempt{group, ExportPhases::describe(m_capture, group), inferred.constraints, {}, -1,
                               QStringLiteral("inferred from its calls")});
    }
}

// The programs the worker kept for the archive (ExportResult::held), written once in
// the order they serve, and checked in one new interpreter. Returns false when there is
// nothing to write (separate files, an older torch, a cancelled run): finish goes on.
bool PhasedExport::writeArchive()
{
    if (m_archiveWritten)
        return false;
    m_archiveWritten = true;
    QStringList names;
    for (const ExportedProgram &p : std::as_const(m_outcome.programs)) {
        if (p.result.held)
            names << p.result.program;
    }
    if (names.isEmpty())
        return false;
    if (m_outcome.cancelled || !m_client) {
        dropHeldPrograms(); // they died with the cancelled worker: nothing was written
        return false;
    }
    m_writeRequest = m_client->writeArchive(m_base.output, names, m_base.verify, m_base.heldOut);
    return true;
}

// Why held-out calls asked for were not replayed: they go through the programs of the
// one archive the run writes and checks, and there was none.
QString PhasedExport::heldOutSkipped() const
{
    if (!m_base.verify)
        return QStringLiteral("the programs were not checked in a new interpreter");
    if (m_outcome.programs.isEmpty())
        return QStringLiteral("no program was written");
    return QStringLiteral("the programs are files of their own (--separate-programs, or a torch without PT2 archives); "
                          "held-out calls are replayed through the programs of one archive");
}

void PhasedExport::onArchiveWritten(int id, const QJsonObject &result)
{
    if (id != m_writeRequest)
        return;
    m_writeRequest = -1;
    m_outcome.freshInterpreters += result.value(QLatin1String("fresh_interpreters")).toInt();
    m_outcome.heldOut = HeldOutReplay::fromJson(result.value(QLatin1String("held_out")));
    QHash<QString, QJsonObject> checks;
    QHash<QString, QJsonValue> probes; // each program's range probes, run while the archive was checked
    QHash<QString, QJsonValue> elsewhere; // who serves the probes each program rejected
    QHash<QString, QJsonObject> probeTimings; // and how long probing and trying them took
    for (const QJsonValue &v : result.value(QLatin1String("programs")).toArray()) {
        const QString name = v.toObject().value(QLatin1String("program")).toString();
        checks.insert(name, v.toObject().value(QLatin1String("fresh_process")).toObject());
        probes.insert(name, v.toObject().value(QLatin1String("probes")));
        elsewhere.insert(name, v.toObject().value(QLatin1String("probes_elsewhere")));
        probeTimings.insert(name, v.toObject().value(QLatin1String("timings")).toObject());
    }
    const QJsonArray written = result.value(QLatin1String("archive_programs")).toArray();
    for (qsizetype i = m_outcome.programs.size() - 1; i >= 0; --i) {
        ExportedProgram &p = m_outcome.programs[i];
        if (!p.result.held)
            continue;
        const QJsonObject fresh = checks.value(p.result.program);
        if (!written.contains(p.result.program)) {
            m_outcome.leftOut.prepend(QStringLiteral("program %1 (calls %2): %3")
                                          .arg(p.result.program, ExportPhases::callsText(p.calls),
                                               fresh.value(QLatin1String("message")).toString()));
            m_outcome.programs.removeAt(i);
            continue;
        }
        p.result.held = false;
        p.result.freshProcess = FreshProcessCheck::fromJson(fresh);
        if (probes.value(p.result.program).isObject()) // the export left them to the archive's writing
            p.result.probes = RangeProbes::fromJson(probes.value(p.result.program));
        p.result.probes.applyElsewhere(elsewhere.value(p.result.program));
        const QJsonObject tried = probeTimings.value(p.result.program);
        for (auto it = tried.begin(); it != tried.end(); ++it)
            p.result.timings.insert(it.key(), it.value());
        if (!fresh.isEmpty())
            p.result.timings.insert(QStringLiteral("fresh_process"), fresh.value(QLatin1String("seconds")));
    }
    finish();
}

void PhasedExport::onArchiveFailed(int id, const WorkerFailure &failure)
{
    if (id != m_writeRequest)
        return;
    m_writeRequest = -1;
    if (failure.kind == QLatin1String("cancelled"))
        m_outcome.cancelled = true;
    else
        m_outcome.writeFailure = failure;
    m_outcome.freshInterpreters += failure.json.value(QLatin1String("result")).toObject()
                                       .value(QLatin1String("fresh_interpreters")).toInt();
    dropHeldPrograms();
    finish();
}

// The continuation program (issue 27 item 2): once the phases are done, when they gave
// several programs (generate()'s prefill and decode; one program for every call serves
// a continuation already, or there is nothing to continue), the worker synthesizes its
// example calls from a recorded prefill into a capture file of this run's own; the
// constraints are inferred from them and the program exported like a phase. Returns
// false when nothing was asked.
bool PhasedExport::requestContinuation()
{
    if (m_continuationTried || !m_options.phases || !m_options.continuation || !m_client || m_stopRequested
        || m_outcome.cancelled || m_outcome.programs.size() < 2)
        return false;
    m_continuationTried = true;
    m_syntheticDir = std::make_unique<QTemporaryDir>();
    if (!m_syntheticDir->isValid()) {
        emit attemptSkipped(m_attempt, {}, QStringLiteral("continuation program not exported: no temporary folder "
                                                          "for its example calls (%1)").arg(m_syntheticDir->errorString()));
        return false;
    }
    m_syntheticPath = m_syntheticDir->filePath(QStringLiteral("continuation.safetensors"));
    m_continuationRequest = m_client->synthesizeContinuation(m_base.model, m_base.capture, m_syntheticPath);
    return true;
}

void PhasedExport::onContinuationSynthesized(int id, const QJsonObject &result)
{
    if (id != m_continuationRequest)
        return;
    m_continuationRequest = -1;
    if (!result.value(QLatin1String("synthesized")).toBool())
        return skipContinuation(result.value(QLatin1String("why")).toString());
    QString error;
    std::optional<Capture> calls = CaptureReader::open(m_syntheticPath, &error);
    const InferenceResult inferred = calls ? CaptureAnalysis::infer(*calls, InferenceOptions::defaultsFor(*calls))
                                           : InferenceResult{};
    if (!calls)
        return skipContinuation(QStringLiteral("its synthesized calls cannot be read: %1").arg(error));
    if (inferred.hasErrors())
        return skipContinuation(QStringLiteral("the constraints inferred from its synthesized calls are unusable: %1")
                                    .arg(inferred.texts(InferenceMessage::Severity::Error).join(QStringLiteral("; "))));
    m_synthetic = *calls;
    QStringList tokens;
    for (const QJsonValue &v : result.value(QLatin1String("calls")).toArray())
        tokens << QStringLiteral("%1 + %2").arg(v.toObject().value(QLatin1String("cached")).toInt())
                      .arg(v.toObject().value(QLatin1String("new")).toInt());
    m_syntheticText = QStringLiteral("verified on %1 call(s) synthesized from call %2: %3 tokens, cached + new")
                          .arg(m_synthetic.calls.size())
                          .arg(result.value(QLatin1String("from_call")).toInt())
                          .arg(tokens.join(QStringLiteral(", ")));
    ConstraintSet constraints = inferred.constraints;
    // A few short synthesized calls make dims one Dim that the recording shows apart
    // (Gemma2's sliding and full layers past the window).
    const QStringList changes = DimsSeenApart::split(&constraints, ShapeTable(m_capture))
                                + raiseSumMinimums(m_synthetic, &constraints);
    Attempt attempt{{}, QStringLiteral("continuation: several new tokens on a non-empty cache"), constraints, {}, -1,
                    QStringLiteral("inferred from its synthesized calls (%1)%2")
                        .arg(m_syntheticText, changes.isEmpty() ? QString() : QStringLiteral(", with ") + changes.join(QStringLiteral(", ")))};
    attempt.synthetic = true;
    m_queue.append(attempt);
    runNext();
}

void PhasedExport::onContinuationFailed(int id, const WorkerFailure &failure)
{
    if (id != m_continuationRequest)
        return;
    m_continuationRequest = -1;
    if (failure.kind == QLatin1String("cancelled"))
        m_outcome.cancelled = true;
    skipContinuation(QStringLiteral("%1: %2").arg(failure.kind, failure.message));
}

// The export goes on without it: a continuation that cannot be made never fails it.
void PhasedExport::skipContinuation(const QString &why)
{
    emit attemptSkipped(m_attempt, {}, QStringLiteral("continuation program not exported: %1").arg(why));
    runNext();
}

// Programs the worker held but never wrote serve no call: their calls are unserved.
void PhasedExport::dropHeldPrograms()
{
    m_outcome.programs.erase(std::remove_if(m_outcome.programs.begin(), m_outcome.programs.end(),
                                            [](const ExportedProgram &p) { return p.result.held; }),
                             m_outcome.programs.end());
}

void PhasedExport::finish()
{
    if (writeArchive())
        return; // finish runs again when the archive is written
    if (!m_base.heldOut.isEmpty() && m_outcome.heldOut.isEmpty()) {
        m_outcome.heldOut.file = m_base.heldOut;
        m_outcome.heldOut.skipped = heldOutSkipped();
    }
    // Files of their own (--separate-programs, torch without PT2 archives) were checked
    // each by its export request, a failed check included.
    for (const ExportResult &round : std::as_const(m_outcome.rounds)) {
        if (!round.held && (!round.freshProcess.status.isEmpty() || round.failure.kind == QLatin1String("fresh_process")))
            ++m_outcome.freshInterpreters;
    }
    const QVector<int> served = m_outcome.servedCalls();
    const QSet<int> done(served.begin(), served.end());
    m_outcome.unserved.clear();
    for (int c = 0; c < m_outcome.callCount; ++c) {
        if (!done.contains(c))
            m_outcome.unserved << c;
    }
    // With several programs, or calls it does not serve, the first is described by what
    // sets its calls apart too: "every call" over a program that serves some reads as a
    // contradiction (issue 28, problem 5).
    if (!m_outcome.programs.isEmpty() && m_outcome.programs.first().description == QLatin1String("every call")
        && m_outcome.programs.first().calls.size() < m_outcome.callCount)
        m_outcome.programs.first().description = ExportPhases::describe(m_capture, m_outcome.programs.first().calls);
    m_running = false;
    emit finished(m_outcome);
}

} // namespace dimscope
