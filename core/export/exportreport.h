// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/exportresult.h"
#include "export/phasedexportoutcome.h"
#include "export/programreadback.h"

#include <QJsonObject>
#include <QMetaType>
#include <QStringList>
#include <QVector>

namespace dimscope {

// A fix the pipeline applied, and the shape decisions of the round that suggested it
// which involve its Dim: what the model did to make torch ask for it.
struct AppliedFix {
    QString line;
    QVector<ShapeExplanation> causes;
};

// One export the run sent to the worker, and the fixes applied after it.
struct ExportRound {
    int attempt = 1;
    int round = 1;
    ExportResult result;
    QVector<AppliedFix> applied;
    QStringList notApplied; // "line (why)"
};

// Everything one ExportRun produced, for both front ends: the pipeline's outcome,
// every round with its fixes and their causes, and each program read back.
struct ExportReport {
    PhasedExportOutcome outcome;
    QVector<ExportRound> rounds;
    QVector<ProgramReadBack> readBacks; // parallel to outcome.programs

    // Dims the constraints made dynamic that came out static, over every program; a
    // program that could not be read back counts as one.
    int specializedCount() const;
    // The export did what was asked: every captured call is served by a program read
    // back, and every dim the constraints made dynamic is symbolic in it.
    bool ok() const;
    // The round the report is about: the last program's, else the last one sent.
    ExportResult lastResult() const;
    // docs/cli.md, "export --json" (format dimscope.export, version 1).
    QJsonObject toJson() const;
};

} // namespace dimscope

Q_DECLARE_METATYPE(dimscope::ExportReport)
