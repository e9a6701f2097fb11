// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QStringList>

namespace dimscope {

// How the worker's `aoti` result reads (docs/cli.md, "aoti"): per program its package,
// the calls it serves and how many the package matches, then each call whose result
// differs and each lost guard (a call or probe the program rejects and the package
// runs), and a last line with the counts. The CLI prints these lines, the GUI shows
// them. Text from files is not escaped here: the caller escapes for its terminal.
class AotiReport
{
public:
    static QStringList lines(const QJsonObject &result);
    // No call differs and no guard was lost.
    static bool clean(const QJsonObject &result);

private:
    static QStringList programLines(const QJsonObject &program, const QString &device);
    static QString rowLabel(const QJsonObject &row);
};

} // namespace dimscope
