// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "constraints/constraintset.h"

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
    // What a document may hold (docs/security.md, "Limits"). Far above any model's
    // (a few to some hundreds of Dims, one leaf per tensor of a capture, whose header
    // CaptureReader bounds), and low enough that every view of a set stays responsive:
    // a file of 10^5 Dims made the GUI freeze for 40 s.
    static constexpr int kMaxDims = 10000;      // root and derived (relations) together
    static constexpr int kMaxLeaves = 1000000;
    static constexpr int kMaxLeafDims = 64;     // entries of one leaf, as torch's tensors (at most 64 dimensions)

    static QByteArray write(const ConstraintSet &set);
    // Errors name the place ("dims[2].min: ...", "leaves['x'][1]: ...") and the problem.
    static std::optional<ConstraintSet> read(const QByteArray &json, QString *error);
    static std::optional<ConstraintSet> readFile(const QString &path, QString *error);
    static bool writeFile(const QString &path, const ConstraintSet &set, QString *error); // atomic

    // One Dim as written in "dims" (shared with the spec emitter).
    static QString dimObject(const DimDecl &dim);
};

} // namespace dimscope
