// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QString>

namespace dimscope {

// The parameters of one AOTInductor check (the worker's `aoti` request, issue 24 item 5;
// docs/worker-protocol.md, "aoti"): the programs of `program` compiled into packages on
// `device` and replayed, next to the program, in a new interpreter on the capture's
// calls and range probes. `dimscope-cli aoti` and Export > Compile with AOTInductor…
// send it the same way.
struct AotiRequest {
    QString program;  // the .pt2 with the exported program(s)
    QString capture;  // the calls to replay
    // The model whose module defines the classes the calls hold (a cache class): loaded
    // by the worker first, as `export --model` does; empty: plain tensors need none.
    QString model;
    QString device = QStringLiteral("cpu"); // cpu or cuda
    QString output;   // the package of the first program; empty: defaultOutput(program)
    QString package;  // an existing package to check instead of compiling one (one program)
    QString heldOut;  // another capture whose calls are replayed too
    bool checkInputs = false; // run the packages with AOTI_RUNTIME_CHECK_INPUTS=1
    bool overwrite = false;

    QJsonObject params() const;
    // "demo.pt2" -> "demo.aoti.pt2", beside it.
    static QString defaultOutput(const QString &program);
};

} // namespace dimscope
