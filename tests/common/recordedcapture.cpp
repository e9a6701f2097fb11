// SPDX-License-Identifier: GPL-3.0-or-later
#include "recordedcapture.h"

#include <QDir>
#include <QFile>
#include <QProcess>

namespace dimscope::test {

QString recordCapture(const QString &dir, const QString &module, const QString &modelSource,
                      const QString &className, const QString &body, const QString &capture, int calls)
{
    QFile model(QDir(dir).filePath(module + QStringLiteral(".py")));
    if (!model.open(QIODevice::WriteOnly) || model.write(modelSource.toUtf8()) < 0)
        return QStringLiteral("cannot write %1").arg(model.fileName());
    model.close();
    QString indented;
    for (const QString &line : body.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
        indented += QStringLiteral("    ") + line + QLatin1Char('\n');
    const QString script = QStringLiteral("import sys, torch\n"
                                          "sys.path.insert(0, sys.argv[1])\n"
                                          "from %1 import %2\n"
                                          "from dimscope.capture import InputRecorder\n"
                                          "torch.manual_seed(0)\n"
                                          "m = %2()\n"
                                          "rec = InputRecorder(store_n_calls=%3)\n"
                                          "with rec(m):\n%4"
                                          "rec.save(sys.argv[2])\n")
                               .arg(module, className)
                               .arg(calls)
                               .arg(indented);
    QProcess python;
    python.setProcessChannelMode(QProcess::MergedChannels);
    python.start(QStringLiteral(DIMSCOPE_SOURCE_DIR "/scripts/torch-python"), {QStringLiteral("-c"), script, dir, capture});
    if (!python.waitForFinished(180000))
        return QStringLiteral("the recorder did not finish in 180 s");
    if (python.exitStatus() != QProcess::NormalExit || python.exitCode() != 0)
        return QString::fromUtf8(python.readAll().right(3000));
    return {};
}

} // namespace dimscope::test
