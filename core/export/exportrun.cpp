// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/exportrun.h"

#include "export/dimintent.h"
#include "export/exportclient.h"
#include "util/latestjob.h"

#include <QSet>

namespace dimscope {

namespace {

// The Dim a suggested fix line changes: "seq_len = 4", "n = Dim('n', max=16)", "dy = dx".
QString fixedDim(const QString &line)
{
    const int eq = line.indexOf(QLatin1String(" = "));
    return eq > 0 ? line.left(eq).trimmed() : QString();
}

// One export with a spec as is: its program serves the calls that replay through it.
PhasedExportOutcome outcomeOf(const ExportResult &result, int callCount)
{
    PhasedExportOutcome outcome;
    outcome.callCount = callCount;
    outcome.firstAttempt = result;
    outcome.rounds = {result};
    outcome.cancelled = result.failure.kind == QLatin1String("cancelled");
    outcome.traces = 1;
    outcome.heldOut = result.heldOut;
    if (!result.ok)
        outcome.failedTraces = {QStringLiteral("round 1: %1").arg(result.failure.kind)};
    QSet<int> served;
    ExportedProgram program;
    program.result = result;
    program.description = QStringLiteral("every call");
    program.traces = 1;
    program.failedTraces = outcome.failedTraces;
    for (const CallVerification &v : result.verification) {
        if (result.exported && v.ok()) {
            program.calls << v.call;
            served.insert(v.call);
        }
    }
    if (!program.calls.isEmpty())
        outcome.programs << program;
    for (int c = 0; c < callCount; ++c) {
        if (!served.contains(c))
            outcome.unserved << c;
    }
    return outcome;
}

// A program exported with a dynamic_shapes spec: its Dims are the spec's, walked along
// the example call.
ProgramReadBack readBackWithSpec(const ExportedProgram &p, const Capture &capture, const QJsonObject &spec, int specCall)
{
    const int call = p.result.exampleCall >= 0 ? p.result.exampleCall : specCall;
    QString error;
    const CallTree &tree = capture.calls.at(qBound(0, call, int(capture.calls.size()) - 1)).inputs;
    // An input the program is keyed to by value was traced static (the worker's keyed_inputs).
    const DimIntent intent = DimIntent::fromSpec(tree, spec, &error).withStatic(p.result.staticByKeys());
    ProgramReadBack back = ProgramReadBack::read(p.result.output, intent, p.result.program);
    back.intentError = error;
    return back;
}

} // namespace

ExportRun::ExportRun(ExportClient *client, QObject *parent)
    : QObject(parent), m_client(client), m_pipeline(new PhasedExport(client, this)), m_readBack(new LatestJob(this))
{
    connectPipeline();
    connect(client, &ExportClient::exportFinished, this, &ExportRun::onSpecExportFinished);
}

ExportRun::~ExportRun()
{
    m_pipeline->disconnect(this); // a read-back still running is dropped (LatestJob)
}

void ExportRun::connectPipeline()
{
    connect(m_pipeline, &PhasedExport::attemptStarted, this, &ExportRun::attemptStarted);
    connect(m_pipeline, &PhasedExport::attemptSkipped, this, &ExportRun::attemptSkipped);
    connect(m_pipeline, &PhasedExport::roundStarted, this, &ExportRun::roundStarted);
    connect(m_pipeline, &PhasedExport::roundFinished, this, &ExportRun::onRoundFinished);
    connect(m_pipeline, &PhasedExport::fixesApplied, this, &ExportRun::onFixesApplied);
    connect(m_pipeline, &PhasedExport::attemptFinished, this, &ExportRun::attemptFinished);
    connect(m_pipeline, &PhasedExport::draftExportStarted, this, &ExportRun::draftExportStarted);
    connect(m_pipeline, &PhasedExport::finished, this, &ExportRun::onExportsFinished);
}

void ExportRun::begin(const Capture &capture)
{
    m_readBack->cancel(); // a read-back of the run before is dropped
    m_report = ExportReport{};
    m_capture = capture;
    m_spec = {};
    m_specRequest = -1;
    m_readingBack = false;
    m_exporting = true;
}

void ExportRun::start(const Capture &capture, const ConstraintSet &constraints, const ExportRequest &request,
                      const PhasedExport::Options &options)
{
    begin(capture);
    m_pipeline->start(capture, constraints, request, options);
}

void ExportRun::startWithSpec(const Capture &capture, const QJsonObject &spec, const ExportRequest &request)
{
    begin(capture);
    m_spec = spec;
    m_specCall = qMax(request.call, 0);
    m_specHeldOut = request.heldOut;
    ExportRequest r = request;
    r.spec = spec;
    emit roundStarted(1, 1);
    m_specRequest = m_client ? m_client->exportModel(r) : -1;
    if (m_specRequest < 0)
        onSpecExportFinished(-1, ExportResult::fromFailure(WorkerFailure::make(QStringLiteral("internal"),
                                                                               QStringLiteral("the export client is gone"))));
}

void ExportRun::cancel()
{
    if (!m_exporting)
        return;
    m_pipeline->stop();
    if (m_client)
        m_client->cancel(); // fails the request with kind "cancelled"; the run finishes
}

void ExportRun::onRoundFinished(int attempt, int round, const ExportResult &result)
{
    m_report.rounds.append(ExportRound{attempt, round, result, {}, {}});
    emit roundFinished(attempt, round, result);
}

// The causes of each fix: the last round's shape decisions about the fix's Dim.
void ExportRun::onFixesApplied(int attempt, int round, const QStringList &applied, const QStringList &unapplied,
                               const ConstraintSet &constraints, bool changed)
{
    const QVector<ShapeExplanation> explanations =
        m_report.rounds.isEmpty() ? QVector<ShapeExplanation>() : m_report.rounds.last().result.explanations;
    QVector<AppliedFix> fixes;
    for (const QString &line : applied)
        fixes.append(AppliedFix{line, ShapeExplanation::about(explanations, fixedDim(line))});
    if (!m_report.rounds.isEmpty()) {
        m_report.rounds.last().applied = fixes;
        m_report.rounds.last().notApplied = unapplied;
    }
    emit fixesApplied(attempt, round, fixes, unapplied, constraints, changed);
}

void ExportRun::onSpecExportFinished(int id, const ExportResult &result)
{
    if (id != m_specRequest || !m_exporting)
        return;
    m_specRequest = -1;
    onRoundFinished(1, 1, result);
    PhasedExportOutcome outcome = outcomeOf(result, int(m_capture.calls.size()));
    if (!m_specHeldOut.isEmpty() && outcome.heldOut.isEmpty())
        outcome.heldOut = HeldOutReplay{m_specHeldOut, QStringLiteral("no program was written and checked"), {}, {}};
    onExportsFinished(outcome);
}

void ExportRun::onExportsFinished(const PhasedExportOutcome &outcome)
{
    m_exporting = false;
    m_report.outcome = outcome;
    emit exportsFinished(outcome);
    readBack(outcome);
}

// Each .pt2 is inflated and parsed on a pool thread: a large program must not stall
// the GUI that drives the run.
void ExportRun::readBack(const PhasedExportOutcome &outcome)
{
    if (outcome.programs.isEmpty() || m_capture.calls.isEmpty()) {
        readBackDone({});
        return;
    }
    m_readingBack = true;
    m_readBack->start(
        [outcome, capture = m_capture, spec = m_spec, specCall = m_specCall](const LatestJob::Control &control) {
            QVector<ProgramReadBack> backs;
            for (const ExportedProgram &p : outcome.programs) {
                if (control.isCancelled())
                    break;
                backs << (spec.isEmpty() ? ProgramReadBack::of(p, capture) : readBackWithSpec(p, capture, spec, specCall));
            }
            return backs;
        },
        [this](const QVector<ProgramReadBack> &backs) { readBackDone(backs); });
}

void ExportRun::readBackDone(const QVector<ProgramReadBack> &readBacks)
{
    m_readingBack = false;
    m_report.readBacks = readBacks;
    emit finished(m_report);
}

} // namespace dimscope
