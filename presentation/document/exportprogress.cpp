// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/exportprogress.h"

#include "export/exportrun.h"
#include "export/exportservice.h"

#include <QStringList>

namespace dimscope {

ExportProgress::ExportProgress(QObject *parent) : QObject(parent) {}

void ExportProgress::follow(ExportService *service)
{
    connect(service, &ExportService::progress, this, &ExportProgress::report);
    ExportRun *run = service->run();
    connect(run, &ExportRun::attemptStarted, this,
            [this](int attempt, const QVector<int> &calls, const QString &description) {
                startPhase(attempt, calls, description);
            });
    connect(run, &ExportRun::roundStarted, this, [this](int, int round) { startRound(round); });
    connect(run, &ExportRun::exportsFinished, this, &ExportProgress::readBack);
    connect(service, &ExportService::finished, this, &ExportProgress::finish);
}

QString ExportProgress::text() const
{
    if (!m_running)
        return {};
    QStringList parts;
    if (m_phase > 0)
        parts << tr("phase %1").arg(m_phase);
    if (m_round > 1)
        parts << tr("round %1").arg(m_round);
    // Before the worker's first step: what is being done ("Exporting demo on cpu → …").
    parts << (m_step.isEmpty() ? m_detail : m_step);
    return parts.join(QStringLiteral(" · "));
}

int ExportProgress::percent() const { return m_fraction < 0 ? -1 : qBound(0, int(m_fraction * 100 + 0.5), 100); }

void ExportProgress::start(const QString &title)
{
    m_running = true;
    m_phase = 0;
    m_round = 1;
    m_step.clear();
    m_detail = title;
    m_fraction = -1;
    emit changed();
}

void ExportProgress::startPhase(int phase, const QVector<int> &calls, const QString &description)
{
    if (!m_running)
        return;
    // The same rule as the Export log's "phase N" lines (ExportService): a phase is
    // named when it serves some calls or is the continuation, not for a plain export.
    m_phase = !calls.isEmpty() || description != QLatin1String("every call") ? phase : 0;
    m_round = 1;
    m_step = tr("exporting"); // a new request to the worker, whose steps follow
    m_fraction = -1;
    emit changed();
}

void ExportProgress::startRound(int round)
{
    if (!m_running)
        return;
    m_round = round;
    m_step = tr("exporting");
    m_fraction = -1;
    emit changed();
}

void ExportProgress::report(const QString &stage, const QString &message, double fraction)
{
    if (!m_running)
        return; // an event of a job that already ended (the worker's last words)
    m_step = stageText(stage, message);
    m_detail = message.isEmpty() ? stage : message;
    m_fraction = fraction < 0 ? -1 : qBound(0.0, fraction, 1.0);
    emit changed();
}

void ExportProgress::readBack()
{
    if (!m_running)
        return;
    m_phase = 0;
    m_round = 1;
    m_step = tr("reading the programs back");
    m_detail = m_step;
    m_fraction = -1;
    emit changed();
}

void ExportProgress::finish()
{
    if (!m_running)
        return;
    m_running = false;
    m_step.clear();
    m_detail.clear();
    m_fraction = -1;
    emit changed();
}

// The worker's stages (docs/worker-protocol.md). Those whose message is a count
// ("call 5 (3 of 8)", "generate() call 1 of 2: …") keep it; the others' messages are
// paths and options, shown in the tooltip and the log, not in a status line.
QString ExportProgress::stageText(const QString &stage, const QString &message)
{
    if (stage == QLatin1String("load_model"))
        return tr("loading the model");
    if (stage == QLatin1String("load_capture"))
        return tr("reading the capture");
    if (stage == QLatin1String("export"))
        return tr("exporting");
    if (stage == QLatin1String("save"))
        return tr("saving");
    if (stage == QLatin1String("fresh_process"))
        return tr("loading in a new interpreter");
    if (stage == QLatin1String("verify"))
        return message.isEmpty() ? tr("verifying") : tr("verifying %1").arg(message);
    if ((stage == QLatin1String("generate") || stage == QLatin1String("record")) && !message.isEmpty())
        return message;
    return message.isEmpty() ? stage : QStringLiteral("%1: %2").arg(stage, message);
}

} // namespace dimscope
