// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QVector>

#include <optional>

namespace dimscope {

// One `  - ...` line of torch.export's "Constraints violated" message.
struct ExportViolation {
    enum class Kind {
        Specialized,        // "... are valid because NAME was inferred to be a constant (N)."
        Guard,              // "... in the specified range ... satisfy the generated guard G"
        Equal,              // "The values of A = ... and B = ... must always be equal."
        Related,            // "The values of A = ... must always be related to the values of B = ... by A = f(B)."
        DynamicSpecialized, // Dim.DYNAMIC: "Not all values of RelaxedUnspecConstraint(SRC) are valid because ..."
        Unknown
    };
    Kind kind = Kind::Unknown;
    QString text;        // the line without "  - "
    QString dim;         // the Dim named first (empty for Dim.DYNAMIC)
    QString source;      // e.g. "L['args'][0][0].size()[0]"
    QString otherDim;    // Equal, Related
    QString otherSource;
    std::optional<qint64> constant; // Specialized, DynamicSpecialized
    QString range;       // the "specified range" text, e.g. "batch <= 64" (may be empty)
    QString guard;       // Guard
    QString relation;    // Related: "dx = dy + 1"
};

// One line of its "Suggested fixes:" section.
struct SuggestedFix {
    enum class Kind {
        Specialize, // NAME = INT
        Range,      // NAME = Dim('NAME'[, min=INT][, max=INT|oo])
        Equal,      // NAME = OTHER
        Derived,    // NAME = A*OTHER + B
        Unnamed,    // NAME = Dim.DYNAMIC (dimscope's line, never torch's: UnnamedDims)
        Unknown
    };
    Kind kind = Kind::Unknown;
    QString line;
    QString name;
    qint64 value = 0;                // Specialize
    std::optional<qint64> min, max;  // Range (max nullopt: oo / unbounded)
    QString other;                   // Equal, Derived
    qint64 a = 1, b = 0;             // Derived
};

// Reads torch.export's constraint-violation message (docs: reference torch-export.md).
class ExportErrorParser
{
public:
    static QVector<ExportViolation> parseViolations(const QString &message);
    static QVector<SuggestedFix> parseFixes(const QString &message);
    static ExportViolation parseViolation(const QString &line);
    static SuggestedFix parseFix(const QString &line);
};

} // namespace dimscope
