// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace dimscope {

// One held-out call as the worker replayed it (docs/worker-protocol.md, "Held-out calls").
struct HeldOutCall {
    struct Rejection {
        QString program;
        QString guard;   // the guard that rejected it ("input_ids.size()[1] <= 7"), else the message's first line
        QString message; // torch's whole text
    };
    int call = 0;
    QString status;  // served, rejected, wrong, eager_failed, rebuilt_differs
    QString program; // the program that accepted it (served, wrong, rebuilt_differs)
    std::optional<double> maxAbs; // the outputs' largest difference from the eager model's
    QString message;
    QVector<Rejection> rejections; // every program tried before one accepted it (all of them: rejected)
};

// The calls of a second capture (`dimscope-cli export --verify-with OTHER`), replayed
// through the exported programs in the fresh interpreter that checks them, each by the
// first program that accepts it, and compared with the eager model there. Plain values.
struct HeldOutReplay {
    QString file;       // the held-out capture; empty: none was asked for
    QString skipped;    // why the calls were not replayed (asked for, but no check ran them)
    QStringList programs; // the programs tried, in order
    QVector<HeldOutCall> calls;

    bool isEmpty() const { return file.isEmpty(); }
    bool replayed() const { return !file.isEmpty() && skipped.isEmpty(); }
    // Served with outputs that differ from the eager model's: the export fails.
    QVector<int> wrongCalls() const;
    int servedCount() const;
    // One line per group of calls: "held-out OTHER: 7 of 8 calls served (calls 0-5, 7)",
    // then one per guard that rejected calls ("call 6 rejected by every program: model:
    // input_ids.size()[1] <= 7"), and each call that could not be verified. Unescaped:
    // they quote file names and torch's words (the printer escapes).
    QStringList summaryLines() const;
    // "held-out OTHER: call 3 WRONG: served by program phase2 with outputs that differ ...".
    QStringList wrongLines() const;
    // A worker result's `held_out` (null or absent: empty).
    static HeldOutReplay fromJson(const QJsonValue &v);
    // docs/cli.md, "export --json": `held_out` (null when none was asked for).
    QJsonValue toJson() const;
};

} // namespace dimscope
