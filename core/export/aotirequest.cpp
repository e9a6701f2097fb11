// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/aotirequest.h"

#include <QFileInfo>

namespace dimscope {

QJsonObject AotiRequest::params() const
{
    QJsonObject p{{QStringLiteral("program"), QFileInfo(program).absoluteFilePath()},
                  {QStringLiteral("capture"), QFileInfo(capture).absoluteFilePath()},
                  {QStringLiteral("device"), device},
                  {QStringLiteral("check_inputs"), checkInputs},
                  {QStringLiteral("overwrite"), overwrite}};
    if (!package.isEmpty())
        p.insert(QStringLiteral("package"), QFileInfo(package).absoluteFilePath());
    else
        p.insert(QStringLiteral("output"), QFileInfo(output.isEmpty() ? defaultOutput(program) : output).absoluteFilePath());
    if (!model.isEmpty())
        p.insert(QStringLiteral("model"), model);
    if (!heldOut.isEmpty())
        p.insert(QStringLiteral("held_out"), QFileInfo(heldOut).absoluteFilePath());
    return p;
}

QString AotiRequest::defaultOutput(const QString &program)
{
    QString stem = program;
    if (stem.endsWith(QLatin1String(".pt2")))
        stem.chop(4);
    return stem + QStringLiteral(".aoti.pt2");
}

} // namespace dimscope
