// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/exportrequest.h"

#include <QDir>
#include <QJsonArray>

namespace dimscope {

QJsonObject ExportRequest::toParams() const
{
    QJsonObject p{
        {QStringLiteral("capture"), QDir(capture).absolutePath()},
        {QStringLiteral("spec"), spec},
        {QStringLiteral("output"), QDir(output).absolutePath()},
        {QStringLiteral("device"), device},
        {QStringLiteral("strict"), strict},
        {QStringLiteral("verify"), verify},
    };
    if (!model.isEmpty())
        p.insert(QStringLiteral("model"), model);
    if (call >= 0)
        p.insert(QStringLiteral("call"), call);
    if (!calls.isEmpty()) {
        QJsonArray a;
        for (int c : calls)
            a.append(c);
        p.insert(QStringLiteral("calls"), a);
    }
    if (!withoutInputs.isEmpty())
        p.insert(QStringLiteral("without_inputs"), QJsonArray::fromStringList(withoutInputs));
    if (reload)
        p.insert(QStringLiteral("reload"), true);
    if (probe)
        p.insert(QStringLiteral("probe"), true);
    if (probe && probeCap > 0)
        p.insert(QStringLiteral("probe_cap"), double(probeCap));
    if (draftExport)
        p.insert(QStringLiteral("draft_export"), true);
    if (!heldOut.isEmpty() && archiveProgram.isEmpty())
        p.insert(QStringLiteral("held_out"), QDir(heldOut).absolutePath());
    if (!archiveProgram.isEmpty())
        p.insert(QStringLiteral("archive"), QJsonObject{{QStringLiteral("path"), QDir(archivePath).absolutePath()},
                                                       {QStringLiteral("program"), archiveProgram}});
    return p;
}

QString ExportRequest::programName(int n)
{
    return n <= 1 ? QStringLiteral("model") : QStringLiteral("phase%1").arg(n);
}

ExportRequest ExportRequest::make(const QString &model, const QString &capture, const QString &output,
                                  const ExportOptions &options)
{
    ExportRequest r;
    r.model = model;
    r.capture = capture;
    r.output = output;
    r.device = options.device;
    r.strict = options.strict;
    r.call = options.exampleCall;
    r.heldOut = options.heldOutCapture;
    // The declared ranges are probed wherever the fix loop runs, as the CLI's
    // --fix-loop does by default (docs/worker-protocol.md, "Range probes").
    r.probe = options.fixLoop;
    return r;
}

} // namespace dimscope
