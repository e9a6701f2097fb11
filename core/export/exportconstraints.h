// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constraints/constraintset.h"

#include <QJsonObject>
#include <QString>

#include <optional>

namespace dimscope {

class Capture;

// What an export runs with when a file gives it (the CLI's --constraints): a
// constraint set, from which each round's spec is emitted, or a dynamic_shapes spec
// used as is. The file's `format` decides: dimscope.constraints, dimscope.project (its
// constraints) or dimscope.dynamic_shapes (docs/cli.md).
struct ExportConstraints {
    std::optional<ConstraintSet> set;
    QJsonObject spec;   // when no set
    QString source;     // where they come from, for the messages

    // nullopt, with *error naming the file and the problem, when it cannot be used.
    static std::optional<ExportConstraints> read(const QString &path, QString *error);
    // Without a file: the constraint set ShapeInference proposes for `capture` (what
    // `analyze --format json` prints), with its warnings; nullopt when it has errors.
    static std::optional<ExportConstraints> inferred(const Capture &capture, QStringList *warnings,
                                                     QStringList *errors);
};

} // namespace dimscope
