// SPDX-License-Identifier: GPL-3.0-or-later
#include "workerlines.h"

#include "export/exportclient.h"
#include "util/terminaltext.h"

#include <QTextStream>

namespace dimscope {

namespace {

bool printed(WorkerLines::Log which, const QString &stream, const QString &text)
{
    if (which == WorkerLines::Log::WarningsOnly)
        return stream == QLatin1String("warning") || stream == QLatin1String("worker");
    return stream != QLatin1String("stderr") || !text.trimmed().isEmpty();
}

} // namespace

void WorkerLines::follow(ExportClient &client, QTextStream &progress, QTextStream &log, Log which)
{
    // Each connect names its sender as the context object: what Qt does without one,
    // spelt out because QT_NO_CONTEXTLESS_CONNECT refuses the form without it (Qt >= 6.7).
    QObject::connect(&client, &ExportClient::progress, &client,
                     [&progress](int, const QString &stage, const QString &message, double) {
                         progress << "[" << TerminalText::escaped(stage) << "] " << TerminalText::escaped(message) << "\n";
                         progress.flush();
                     });
    QObject::connect(&client, &ExportClient::logLine, &client, [&log, which](int, const QString &stream, const QString &text) {
        if (printed(which, stream, text))
            log << "  " << TerminalText::escaped(stream) << ": " << TerminalText::escaped(text) << "\n";
        log.flush();
    });
}

} // namespace dimscope
