// SPDX-License-Identifier: GPL-3.0-or-later
#include "text/openfailuretext.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace dimscope {

QString openFailureText(const QString &path, const QString &error)
{
    QString reason = error.trimmed();
    const QString absolute = QFileInfo(path).absoluteFilePath();
    for (const QString &prefix : {path, QDir::toNativeSeparators(path), absolute}) {
        if (!prefix.isEmpty() && reason.startsWith(prefix + QStringLiteral(": "))) {
            reason = reason.mid(prefix.size() + 2);
            break;
        }
    }
    return QCoreApplication::translate("dimscope::MainWindow", "Cannot open %1: %2")
        .arg(QDir::toNativeSeparators(path), reason);
}

} // namespace dimscope
