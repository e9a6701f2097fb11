// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/exportresult.h"
#include "export/fixpreview.h"
#include "export/examplecalladvice.h"
#include "pt2/pt2dimmapper.h"
#include "pt2/pt2program.h"

#include <QWidget>

#include <optional>

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSplitter;
class QStackedWidget;
class QTabWidget;
class QTableView;
class QTreeWidget;
class QItemSelection;

namespace dimscope {

class ExportResults;
class HeldOutView;
struct PhasedExportOutcome;
class ServedRangesModel;
class ProgramsModel;
class TableFilter;
class Pt2ProgramView;
class VerificationModel;

// The document's ExportResults, shown as they change: the outcome of an export, or a
// .pt2 opened on its own. Success: the programs
// exported (one, or one per phase of the captured calls, with the calls each serves),
// and for the selected one its inputs with their sizes in Dim names, ranges and the
// verification table of its calls.
// Failure: the violations with the Dims and leaves they name, torch's suggested fixes
// with "Apply fixes" and "Re-export", and for the other kinds of failure the
// explanation, the user's source line and the traceback.
class ExportResultView : public QWidget
{
    Q_OBJECT
public:
    // The failure's violations table: the last column stretches.
    enum ViolationsColumn { LeafDimsColumn, DimsColumn, WhereColumn, ViolationColumn, ViolationColumnCount };

    // Shows `results` (which outlive the view) as they are and whenever they change.
    explicit ExportResultView(const ExportResults *results, QWidget *parent = nullptr);

    // Shows program `row` of the outcome: its interface and the replay of its calls.
    void selectProgram(int row);
    int selectedProgram() const { return m_selected; }
    // After "Apply fixes": what was applied and the lines that could not be.
    void showFixOutcome(const QStringList &applied, const QStringList &unapplied);
    // The applied fixes were undone (or redone): the text says so, and Apply is offered
    // again while they are undone.
    void showFixesUndone(bool undone);
    // The fixes whose box is ticked: all but those that would break captured calls or
    // cannot be applied, until the user changes them.
    QStringList checkedFixes() const;

    QLabel *headline() const { return m_headline; }
    ProgramsModel *programsModel() const { return m_programsModel; }
    QTableView *programsView() const { return m_programsView; }
    Pt2ProgramView *programView() const { return m_program; }
    VerificationModel *verificationModel() const { return m_verification; }
    // The held-out calls of the outcome shown (a tab beside the captured calls').
    HeldOutView *heldOutView() const { return m_heldOut; }
    QTabWidget *callTabs() const { return m_callTabs; }
    // The probed ranges of every program of the outcome (a tab beside the calls').
    ServedRangesModel *servedRangesModel() const { return m_servedRanges; }
    QTableView *servedRangesView() const { return m_servedRangesView; }
    QTreeWidget *violationsView() const { return m_violations; }
    QListWidget *fixesView() const { return m_fixes; }
    QPushButton *applyFixesButton() const { return m_apply; }
    QPushButton *reexportButton() const { return m_reexport; }
    QLabel *fixOutcomeLabel() const { return m_fixOutcome; }
    QPlainTextEdit *detailsView() const { return m_details; }
    // The "Suggested fixes" list with Apply fixes: hidden when torch suggested none.
    QWidget *fixesBox() const { return m_fixesBox; }
    // What the user can do about a failure without fixes (FailureAdvice).
    QLabel *adviceLabel() const { return m_advice; }
    QLabel *exampleCallAdviceLabel() const { return m_exampleAdvice; }
    QPushButton *useExampleCallButton() const { return m_useExample; }
    // A partial result: why the unserved calls were rejected, and the remedy.
    QLabel *unservedAdviceLabel() const { return m_unservedAdvice; }
    QPushButton *exportPhasesButton() const { return m_exportPhases; }
    // The search over the result tables of the page shown.
    TableFilter *tableFilter() const { return m_filter; }
    bool showsFailure() const;

signals:
    void applyFixesRequested(const QStringList &fixes);
    void reexportRequested();
    void useExampleCallRequested(int call);
    // Export again with a program per phase (the fix loop on).
    void exportPhasesRequested();
    // "Verify With Another Capture…" on the held-out tab.
    void verifyWithRequested();

private:
    void showResults();
    void clear();
    // What one export produced. With no program, the first attempt's failure.
    void showOutcome();
    void showServedRanges(const PhasedExportOutcome &outcome);
    void showCancelled();
    // Under the programs of a partial result: UnservedAdvice, and its one-click remedy.
    void showUnservedAdvice();
    QWidget *createUnservedBox();
    // `program`: the .pt2 read back (nullopt with `programError` when it could not be).
    void showResult(const ExportResult &result, const std::optional<Pt2Program> &program,
                    const std::optional<Pt2DimMapping> &mapping, const QString &programError);
    // A .pt2 opened without an export: its interface only.
    void showPrograms(const QVector<Pt2Program> &programs);
    void setCallsShown(bool shown);
    // Each suggested fix of the failure shown, with the model line behind it and the
    // captured calls it would break (FixPreview), before the user applies them.
    void showFixPreviews(const QVector<FixPreview> &previews);
    // A captured call that would make a better example than the one the failed export
    // traced (ExampleCallAdvice), with a button to re-export with it; invalid: hidden.
    void showExampleCallAdvice(const ExampleCallAdvice &advice);
    QWidget *createSuccessPage();
    QWidget *createFailurePage();
    void addTableTools();
    void refreshFilter();
    void showFailure(const WorkerFailure &failure);
    void addViolation(const WorkerViolation &violation);
    void fitViolationColumns();
    // Apply is offered when a fix is ticked, and says how many.
    void updateApplyButton();
    void showFixText(bool undone);
    QString outcomeHeadline() const;

    const ExportResults *m_results;
    QLabel *m_headline;
    QStackedWidget *m_pages;
    // the programs of the last export
    ProgramsModel *m_programsModel;
    QTableView *m_programsView;
    int m_selected = -1;
    // success
    Pt2ProgramView *m_program;
    VerificationModel *m_verification;
    QTableView *m_verificationView;
    QTabWidget *m_callTabs = nullptr;
    HeldOutView *m_heldOut = nullptr;
    ServedRangesModel *m_servedRanges;
    QTableView *m_servedRangesView = nullptr;
    // failure
    QTreeWidget *m_violations;
    QListWidget *m_fixes;
    QPushButton *m_apply;
    QPushButton *m_reexport;
    QLabel *m_fixOutcome;
    QStringList m_appliedFixes; // the last Apply's, for the text that follows undo
    QStringList m_unappliedFixes;
    bool m_fixesApplied = false; // applied and not undone: Apply is not offered twice
    QPlainTextEdit *m_details;
    QWidget *m_fixesBox;
    QSplitter *m_findings; // violations | fixes
    QLabel *m_advice;
    QLabel *m_exampleAdvice;
    QPushButton *m_useExample;
    int m_proposedCall = -1;
    QWidget *m_unservedBox = nullptr;
    QLabel *m_unservedAdvice = nullptr;
    QPushButton *m_exportPhases = nullptr;
    TableFilter *m_filter;
    QWidget *m_failurePage = nullptr;
};

} // namespace dimscope
