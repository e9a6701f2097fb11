// SPDX-License-Identifier: GPL-3.0-or-later
#include "export/recordedproject.h"

#include "capture/capturereader.h"
#include "export/exportconstraints.h"
#include "project/projectfile.h"

#include <QDir>

namespace dimscope {

bool RecordedProject::write(const QString &projectPath, const QString &capturePath, const QString &modelRef,
                            QStringList *warnings, QString *error)
{
    const std::optional<Capture> capture = CaptureReader::open(capturePath, error);
    if (!capture)
        return false;
    QStringList errors;
    const std::optional<ExportConstraints> inferred = ExportConstraints::inferred(*capture, warnings, &errors);
    if (!inferred || !inferred->set) {
        *error = QStringLiteral("%1: the constraints inferred from it are unusable: %2")
                     .arg(capturePath, errors.join(QStringLiteral("; ")));
        return false;
    }
    ProjectFile project;
    project.capturePath = QDir(capturePath).absolutePath();
    project.modelRef = modelRef;
    project.constraints = inferred->set;
    return ProjectFile::write(projectPath, project, error);
}

} // namespace dimscope
