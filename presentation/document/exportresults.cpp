// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/exportresults.h"

#include "export/exportservice.h"
#include "models/explanationsmodel.h"
#include "document/projectdocument.h"

#include <QDir>

namespace dimscope {

ExportResults::ExportResults(ProjectDocument *document) : QObject(document), m_document(document) {}

ExportResult ExportResults::lastResult() const
{
    return m_outcome.programs.isEmpty() ? m_outcome.firstAttempt : m_outcome.programs.first().result;
}

std::optional<Pt2Program> ExportResults::program() const
{
    if (!m_openedPrograms.isEmpty())
        return m_openedPrograms.first();
    return m_readBacks.isEmpty() ? std::nullopt : m_readBacks.first().program;
}

std::optional<Pt2DimMapping> ExportResults::mapping() const
{
    if (!m_openedPrograms.isEmpty())
        return Pt2DimMapper::recorded(m_openedPrograms.first());
    return m_readBacks.isEmpty() ? std::nullopt : m_readBacks.first().mapping;
}

void ExportResults::follow(ExportService *service)
{
    delete m_awaited;
    m_awaited = new QObject(this);
    // One outcome per export; the context object ends the connection when clear()
    // deletes it, so an export of the previous document is never shown for this one.
    connect(
        service, &ExportService::finished, m_awaited,
        [this](const PhasedExportOutcome &outcome, const QVector<ProgramReadBack> &readBacks) {
            m_awaited->deleteLater();
            m_awaited = nullptr;
            setOutcome(outcome, readBacks);
        },
        Qt::SingleShotConnection);
}

void ExportResults::setOutcome(const PhasedExportOutcome &outcome, const QVector<ProgramReadBack> &readBacks)
{
    // A cancelled re-export keeps the last good result and its Why: the user stopped
    // the new export, not the program they had (issue 28, problem 7).
    if (outcome.cancelled && m_hasOutcome && !m_outcome.programs.isEmpty()) {
        m_cancelledOverPrevious = true;
        emit changed();
        return;
    }
    reset();
    m_hasOutcome = true;
    m_outcome = outcome;
    m_readBacks = readBacks;
    m_readBacks.resize(outcome.programs.size());
    m_explanations = ExplanationsModel::collect(outcome);
    previewFixes();
    remember();
    emit changed();
}

// The outcome into the history, dropping the oldest beyond kHistorySize. A first
// export cancelled produced nothing to compare and is not kept.
void ExportResults::remember()
{
    if (m_outcome.cancelled)
        return;
    ExportRecord record;
    record.number = ++m_exportsEnded;
    record.finished = QDateTime::currentDateTime();
    record.outcome = m_outcome;
    record.readBacks = m_readBacks;
    m_history.append(record);
    while (m_history.size() > kHistorySize)
        m_history.removeFirst();
    emit historyChanged();
}

// torch's fixes come from the call it traced: what each would change and break in
// the document's constraints as they are now, and whether another call needs none.
void ExportResults::previewFixes()
{
    const WorkerFailure &failure = m_outcome.firstAttempt.failure;
    if (!m_outcome.programs.isEmpty() || !m_document->hasCapture() || !failure.hasFixes())
        return;
    m_fixPreviews = FixPreview::make(m_document->constraints(), m_document->validator(), failure.fixes,
                                     failure.explanations);
    const ExportHints hints = m_document->exportHints();
    const int chosen = m_document->exportOptions().exampleCall;
    m_exampleCallAdvice = ExampleCallAdvice::make(hints, chosen >= 0 ? chosen : hints.automaticCall());
}

void ExportResults::setOpenedPrograms(const QString &path, const QVector<Pt2Program> &programs)
{
    reset();
    forgetHistory();
    m_openedPrograms = programs;
    m_openedProgramPath = path;
    emit changed();
}

void ExportResults::clear()
{
    delete m_awaited;
    reset();
    forgetHistory();
    emit changed();
}

// The history belongs to the document's exports: another document starts without.
void ExportResults::forgetHistory()
{
    m_exportsEnded = 0;
    if (m_history.isEmpty())
        return;
    m_history.clear();
    emit historyChanged();
}

void ExportResults::reset()
{
    m_hasOutcome = false;
    m_cancelledOverPrevious = false;
    m_outcome = {};
    m_readBacks.clear();
    m_fixPreviews.clear();
    m_exampleCallAdvice = {};
    m_explanations.clear();
    m_openedPrograms.clear();
    m_openedProgramPath.clear();
}

QHash<int, QString> ExportResults::servedElsewhere(int program) const
{
    QHash<int, QString> served;
    if (program < 0 || program >= m_outcome.programs.size())
        return served;
    const QVector<int> &own = m_outcome.programs.at(program).calls;
    for (int p = 0; p < m_outcome.programs.size(); ++p) {
        if (p == program)
            continue;
        for (int call : m_outcome.programs.at(p).calls)
            if (!own.contains(call) && !served.contains(call))
                served.insert(call, UnservedAdvice::programName(m_outcome, p));
    }
    return served;
}

UnservedAdvice ExportResults::unservedAdvice() const
{
    if (!m_hasOutcome)
        return {};
    return UnservedAdvice::make(m_outcome, m_document->exportOptions().fixLoop);
}

bool ExportResults::succeeded() const
{
    return m_hasOutcome && !m_outcome.cancelled && m_outcome.servesEveryCall();
}

QString ExportResults::summary() const
{
    if (!m_hasOutcome)
        return {};
    const ExportResult result = lastResult();
    const int programs = int(m_outcome.programs.size());
    if (m_outcome.cancelled)
        return tr("Cancelled; nothing exported yet (the next export starts a fresh worker).");
    if (m_cancelledOverPrevious)
        return tr("Cancelled; the previous result is kept.");
    if (m_outcome.servesEveryCall() && programs == 1 && result.ok)
        return tr("Exported %1; %2 of %3 captured calls replay.")
            .arg(QDir::toNativeSeparators(result.output))
            .arg(result.verification.size())
            .arg(result.verification.size());
    if (m_outcome.servesEveryCall())
        return tr("Exported %n program(s): %1.", nullptr, programs).arg(m_outcome.summary());
    if (programs > 0)
        return tr("Exported %n program(s), but %1.", nullptr, programs).arg(m_outcome.summary());
    return tr("Export failed (%1): %2").arg(result.failure.kind, result.failure.message);
}

} // namespace dimscope
