// SPDX-License-Identifier: GPL-3.0-or-later
#include "text/sourceexcerpt.h"

#include <QFile>
#include <QFileInfo>
#include <QObject>

namespace dimscope {

namespace {
constexpr qint64 kMaxSourceBytes = 8 * 1024 * 1024; // a model's source, not a data file
}

SourceExcerpt SourceExcerpt::read(const QString &file, int line, int context)
{
    SourceExcerpt x;
    x.file = file;
    x.focusLine = line;
    QFile f(file);
    if (line < 1) {
        x.error = QObject::tr("%1: no line number").arg(file);
        return x;
    }
    if (QFileInfo(file).size() > kMaxSourceBytes) {
        x.error = QObject::tr("%1: larger than %2 MiB, not shown").arg(file).arg(kMaxSourceBytes >> 20);
        return x;
    }
    if (!f.open(QIODevice::ReadOnly)) {
        x.error = QObject::tr("%1: %2").arg(file, f.errorString());
        return x;
    }
    const QStringList all = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
    if (line > all.size()) {
        x.error = QObject::tr("%1 has %2 lines, not %3 (changed since the export?)").arg(file).arg(all.size()).arg(line);
        return x;
    }
    x.firstLine = qMax(1, line - context);
    const int last = qMin(int(all.size()), line + context);
    for (int i = x.firstLine; i <= last; ++i)
        x.lines << all.at(i - 1);
    return x;
}

QString SourceExcerpt::toText() const
{
    QString text;
    const int width = int(QString::number(firstLine + lines.size() - 1).size());
    for (int i = 0; i < lines.size(); ++i) {
        const int n = firstLine + i;
        text += (n == focusLine ? QLatin1String("> ") : QLatin1String("  ")) + QString::number(n).rightJustified(width)
            + QLatin1String("  ") + lines.at(i) + QLatin1Char('\n');
    }
    return text;
}

} // namespace dimscope
