// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constraints/constraintset.h"

#include <QString>

#include <optional>

namespace dimscope {

// Export settings kept with a project (the Export > Options dialog).
struct ExportOptions {
    QString device = QStringLiteral("cpu"); // "cpu" or "cuda"
    int exampleCall = -1;                   // -1: let dimscope choose
    bool strict = false;
    // Apply torch's suggested fixes to a copy of the constraints and export again, and
    // export a program per phase for calls one program cannot serve (PhasedExport).
    // Off: one export with the constraints as they are (fixes offered, not applied).
    bool fixLoop = true;
    // Several programs (the phases) as one file each (OUT.pt2, OUT.phase2.pt2, ...)
    // instead of one PT2 archive with the weights stored once (torch >= 2.8; older
    // torch writes one file per program whatever this says).
    bool separatePrograms = false;
    // A second capture of the same model whose calls every export also replays through
    // its programs in the fresh interpreter that checks them (`export --verify-with`);
    // absolute in memory, stored relative to the project. Empty: none.
    QString heldOutCapture;

    friend bool operator==(const ExportOptions &x, const ExportOptions &y)
    {
        return x.device == y.device && x.exampleCall == y.exampleCall && x.strict == y.strict
            && x.fixLoop == y.fixLoop && x.separatePrograms == y.separatePrograms
            && x.heldOutCapture == y.heldOutCapture;
    }
};

// A `.dimscope` project (docs/project-format.md): the capture, the model reference and
// the user's constraint set. The capture path, and the path of a file or folder model
// reference, are absolute in memory and stored relative to the project file, so a
// project folder can be moved or committed and its model is the one beside it.
struct ProjectFile {
    QString capturePath;
    QString modelRef;                          // "package.module:callable", "/abs/file.py:callable", a HF folder (ModelReference)
    std::optional<ConstraintSet> constraints;  // absent: use the inferred proposal
    ExportOptions exportOptions;

    static constexpr int kVersion = 1;
    static constexpr qint64 kMaxBytes = 256 * 1024 * 1024; // larger is refused unread

    // Errors name the file and the place ("demo.dimscope: constraints.dims[0].min: ...").
    static std::optional<ProjectFile> read(const QString &path, QString *error);
    // Atomic (AtomicFile): an interrupted save or a full disk leaves the previous file
    // intact, and is reported.
    static bool write(const QString &path, const ProjectFile &project, QString *error);
    static QByteArray toJson(const ProjectFile &project, const QString &projectPath);

    friend bool operator==(const ProjectFile &x, const ProjectFile &y)
    {
        return x.capturePath == y.capturePath && x.modelRef == y.modelRef && x.constraints == y.constraints
            && x.exportOptions == y.exportOptions;
    }
};

} // namespace dimscope
