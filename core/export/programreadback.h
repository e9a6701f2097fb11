// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/phasedexportoutcome.h"
#include "pt2/pt2dimmapper.h"
#include "pt2/pt2program.h"

#include <QString>

#include <optional>

namespace dimscope {

class Capture;
struct DimIntent;

// One exported program as read back from its .pt2: its interface, and its symbols
// mapped to the Dim names of the constraints it was exported with (nullopt program,
// with `error`, when the file could not be read).
struct ProgramReadBack {
    std::optional<Pt2Program> program;
    std::optional<Pt2DimMapping> mapping;
    QString error;
    int wantedDynamic = 0; // dims the constraints made dynamic (DimIntent::wantedDynamicCount)
    QString intentError;   // a dynamic_shapes spec that does not fit the example call everywhere

    // Reads `exported`'s program from its .pt2; `capture` gives the example call the
    // mapping is made on.
    static ProgramReadBack of(const ExportedProgram &exported, const Capture &capture);
    // Reads program `program` of `pt2` (empty: its first, "model") and maps it with `intent`.
    static ProgramReadBack read(const QString &pt2, const DimIntent &intent, const QString &program = {});
    // Dims the constraints made dynamic that the program has static.
    int specializedCount() const;
};

} // namespace dimscope
