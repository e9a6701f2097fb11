// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "shapes/constraintset.h"

#include <QByteArray>

#include <optional>

class QJsonObject;

namespace dimscope {

// The constraint set document of docs/spec-format.md ("dimscope.constraints",
// version 1). Writing is canonical: reading a written document and writing it again
// gives the same bytes.
class ConstraintSetJson
{
public:
    static constexpr int kVersion = 1;

    static QByteArray write(const ConstraintSet &set);
    // Errors name the place ("dims[2].min: ...", "leaves['x'][1]: ...") and the problem.
    static std::optional<ConstraintSet> read(const QByteArray &json, QString *error);
    static std::optional<ConstraintSet> readFile(const QString &path, QString *error);
    static bool writeFile(const QString &path, const ConstraintSet &set, QString *error); // atomic

    // One Dim as written in "dims" (shared with the spec emitter).
    static QString dimObject(const DimDecl &dim);
};

} // namespace dimscope
