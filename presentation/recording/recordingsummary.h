// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QString>

namespace dimscope {

// What made a capture that dimscope recorded (the manifest's `recording`,
// docs/capture-format.md) in the words of the Export dock (issue 21 item 3): the model,
// the settings, and each generate() call's prompts. Text from the file is escaped as
// on a terminal (a control character cannot rewrite what the line says).
class RecordingSummary
{
public:
    // "Recorded from tiny-llama (AutoModelForCausalLM): 6 of 6 forward calls in 2
    // generate() calls; max_new_tokens 2, greedy, padding left", then a line per call.
    // Empty for a capture without `recording`.
    static QString describe(const QJsonObject &recording);
    // The recording's end for the Export dock's log and the status bar: "Recorded 6 of
    // 6 forward call(s) in 2 generate() call(s) in 3.1 s, peak memory 412 MiB" from the
    // worker's result (time and memory only when it reports them).
    static QString finished(const QJsonObject &result);
};

} // namespace dimscope
