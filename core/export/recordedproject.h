// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringList>

namespace dimscope {

// The project a recording opens as (issue 21 item 3; `dimscope-cli record --project`):
// the capture just written, the model reference it was recorded from, and the
// constraint set ShapeInference proposes for it, written with ProjectFile::write (atomic).
class RecordedProject
{
public:
    // False with *error (naming the file and the problem) when the capture cannot be
    // read, its inferred constraints are unusable, or the project cannot be written.
    // *warnings: inference's warnings (one line each).
    static bool write(const QString &projectPath, const QString &capturePath, const QString &modelRef,
                      QStringList *warnings, QString *error);
};

} // namespace dimscope
