// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "document/exportrecord.h"
#include "export/exportresult.h"
#include "export/fixpreview.h"
#include "export/phasedexportoutcome.h"
#include "export/programreadback.h"
#include "pt2/pt2dimmapper.h"
#include "pt2/pt2program.h"
#include "export/examplecalladvice.h"
#include "text/unservedadvice.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QVector>

#include <optional>

namespace dimscope {

class ExportService;
class ProjectDocument;

// What the document's exports produced, with one owner: the last export's outcome,
// its programs read back in Dim names, torch's fixes previewed against the document's
// constraints and a better example call; or the .pt2 opened as the document; and
// torch's shape decisions (the Why dock, the Dims' and leaves' tooltips). The
// ProjectDocument holds it and clears it when another capture (or none) is opened;
// the result view, the Export dock and the Why dock follow changed(). It also keeps
// the document's last few export outcomes (history(), for Compare): a re-export adds
// to them, it does not replace the one before.
class ExportResults : public QObject
{
    Q_OBJECT
public:
    explicit ExportResults(ProjectDocument *document);

    // Nothing to show: no export finished and no .pt2 opened since the document was.
    bool isEmpty() const { return !m_hasOutcome && m_openedPrograms.isEmpty(); }
    bool hasOutcome() const { return m_hasOutcome; }
    const PhasedExportOutcome &outcome() const { return m_outcome; }
    // Parallel to outcome().programs.
    const QVector<ProgramReadBack> &readBacks() const { return m_readBacks; }
    // The first program's round, or the first attempt's when none exported.
    ExportResult lastResult() const;
    // The first program read back, or the .pt2 opened on its own; its mapping to Dim
    // names (for a .pt2 opened on its own, the names its file records, if any).
    std::optional<Pt2Program> program() const;
    std::optional<Pt2DimMapping> mapping() const;
    // The .pt2 opened as the document; empty otherwise.
    QString openedProgramPath() const { return m_openedProgramPath; }
    // Every program of the .pt2 opened as the document ("model" first, then "phase2", ...).
    const QVector<Pt2Program> &openedPrograms() const { return m_openedPrograms; }
    // For a failure with fixes: each fix with its cause and the calls it would break,
    // and a captured call that would make a better example.
    const QVector<FixPreview> &fixPreviews() const { return m_fixPreviews; }
    ExampleCallAdvice exampleCallAdvice() const { return m_exampleCallAdvice; }
    const QVector<ShapeExplanation> &explanations() const { return m_explanations; }
    // The calls program `program` does not serve that another program of the outcome
    // does, each with that program's name ("llava.phase2.pt2", "program phase2 of
    // llava.pt2"): shown as served there, not as rejected.
    QHash<int, QString> servedElsewhere(int program) const;
    // For a partial result: why each unserved call was rejected and what to do.
    UnservedAdvice unservedAdvice() const;
    // The outcome in one line for the Export dock, and whether it delivered.
    bool succeeded() const;
    QString summary() const;
    // The last export was cancelled: over a previous result (kept, and shown) or before
    // any (nothing to show). Said neutrally: the user stopped it, nothing failed.
    bool cancelled() const { return m_cancelledOverPrevious || (m_hasOutcome && m_outcome.cancelled); }

    // The document's last exports that ended (not the cancelled ones), oldest first, at
    // most kHistorySize; the last is the current outcome. Kept for the session, and
    // cleared with the document.
    static constexpr int kHistorySize = 5;
    const QVector<ExportRecord> &history() const { return m_history; }

    // `service` is about to export this document: its outcome becomes the results when
    // it finishes, unless clear() (another document) comes first.
    void follow(ExportService *service);
    void setOutcome(const PhasedExportOutcome &outcome, const QVector<ProgramReadBack> &readBacks);
    // A .pt2 read on its own (all its programs, not none), as the (otherwise empty) document.
    void setOpenedPrograms(const QString &path, const QVector<Pt2Program> &programs);
    // Empty again, and an export being followed is no longer awaited. Emits changed()
    // even when it was empty: the Export dock's log goes too.
    void clear();

signals:
    void changed();
    // history() gained a record (or was cleared).
    void historyChanged();

private:
    void reset();
    void previewFixes();
    void remember();
    void forgetHistory();

    ProjectDocument *m_document;
    QPointer<QObject> m_awaited; // the connection to the followed export's finished()
    bool m_hasOutcome = false;
    bool m_cancelledOverPrevious = false; // the last export was cancelled; the outcome is the one before
    PhasedExportOutcome m_outcome;
    QVector<ProgramReadBack> m_readBacks;
    QVector<FixPreview> m_fixPreviews;
    ExampleCallAdvice m_exampleCallAdvice;
    QVector<ShapeExplanation> m_explanations;
    QVector<Pt2Program> m_openedPrograms;
    QString m_openedProgramPath;
    QVector<ExportRecord> m_history;
    int m_exportsEnded = 0; // numbers the records
};

} // namespace dimscope
