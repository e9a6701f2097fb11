// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

class QTextStream;

namespace dimscope {

class ExportClient;

// The worker's events as every CLI command prints them, each escaped to one line
// (TerminalText): "[stage] message" for its progress, "  stream: text" for its log.
class WorkerLines
{
public:
    enum class Log {
        AllButBlankStderr, // export, record: everything the worker says
        WarningsOnly,      // aoti: inductor's compile chatter is left out
    };
    static void follow(ExportClient &client, QTextStream &progress, QTextStream &log, Log which);
};

} // namespace dimscope
