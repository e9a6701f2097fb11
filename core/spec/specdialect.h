// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QVector>

#include <optional>

namespace dimscope {

// How SpecScript writes the dynamic_shapes (docs/spec-format.md, "The spec as a script").
enum class SpecDialect {
    NamedDims,         // Dim("name", min, max) and derived expressions: what dimscope exports with
    DimHints,          // Dim.DYNAMIC / Dim.AUTO with min and max where the torch takes them
    ShapesCollection,  // torch.export.ShapesCollection keyed by the example call's tensors
    AdditionalInputs,  // torch.export.AdditionalInputs from the other captured calls
};

class SpecDialects
{
public:
    static QVector<SpecDialect> all();
    // The command-line name: "named", "hints", "shapes-collection", "additional-inputs".
    static QString name(SpecDialect dialect);
    static std::optional<SpecDialect> fromName(const QString &name);
    // What the GUI's combo shows.
    static QString label(SpecDialect dialect);
};

} // namespace dimscope
