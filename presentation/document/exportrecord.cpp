// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/exportrecord.h"

#include "export/exportphases.h"

#include <QCoreApplication>

namespace dimscope {

namespace {

QString tr(const char *text, int n = -1) { return QCoreApplication::translate("dimscope::ExportRecord", text, nullptr, n); }

} // namespace

QString ExportRecord::verdict() const
{
    const int programs = int(outcome.programs.size());
    if (programs == 0) {
        const QString kind = outcome.firstAttempt.failure.kind;
        return kind.isEmpty() ? tr("nothing exported") : tr("failed (%1)").arg(kind);
    }
    const QString count = tr("%n program(s)", programs);
    if (outcome.servesEveryCall())
        return tr("%1, every call served").arg(count);
    return tr("%1, calls %2 unserved").arg(count, ExportPhases::callsText(outcome.unserved));
}

QString ExportRecord::label() const
{
    return tr("Export %1 (%2): %3").arg(number).arg(finished.toString(QStringLiteral("HH:mm:ss")), verdict());
}

} // namespace dimscope
