// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "export/exportresult.h"
#include "capture/capture.h"
#include "models/loadedcapture.h"
#include "project/projectfile.h"
#include "constraints/constraintset.h"
#include "constraints/constraintviolation.h"
#include "export/exporthints.h"
#include "inference/inferenceresult.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

class QUndoStack;

namespace dimscope {

class ConstraintValidator;
class DimColours;
class ExportResults;

// The open work: one loaded capture (its tree, summaries and inference), the user's
// ConstraintSet (every edit an undoable step), the model reference and export options,
// and the project file they are saved to. The views read it, follow its signals and
// edit through it, so the capture, undo, validation and the "modified" state have one
// owner. While a capture is being opened the document is read-only (setLoading), so
// that no edit is made to a document about to be replaced.
class ProjectDocument : public QObject
{
    Q_OBJECT
public:
    explicit ProjectDocument(QObject *parent = nullptr);
    ~ProjectDocument() override;

    bool hasCapture() const { return !m_loaded.isNull(); }
    // The opened capture as the views show it; null before one is opened.
    LoadedCapturePtr loaded() const { return m_loaded; }
    const Capture &capture() const;
    const InferenceResult &inference() const;
    const ShapeTable &table() const { return inference().table; }
    const ConstraintSet &constraints() const { return m_constraints; }
    const ValidationReport &validation() const { return m_validation; }
    // The opened capture's calls as the constraints are checked against them (it holds
    // the ShapeTable): for previews that validate other sets. Only with a capture.
    const ConstraintValidator &validator() const { return *m_validator; }
    // What to check before an export with the current constraints (Dims that may be one,
    // the example call); empty without a capture. Computed on each call.
    ExportHints exportHints() const;
    QString capturePath() const { return m_capturePath; }
    QString projectPath() const { return m_projectPath; }
    QString modelRef() const { return m_modelRef; }
    // The user's choice of model (File > Open Model…): runs without asking.
    void setModelRef(const QString &modelRef);
    // The model reference came from an opened project file, not from the user: running
    // it needs the user's yes once per project place (ModelConsent).
    bool isModelRefFromProject() const { return m_modelRefFromProject; }
    ExportOptions exportOptions() const { return m_options; }
    void setExportOptions(const ExportOptions &options);
    QUndoStack *undoStack() { return m_undoStack; }
    // A stable colour per Dim, updated before constraintsChanged() is emitted.
    const DimColours &dimColours() const { return *m_colours; }

    // A freshly opened capture: `saved` replaces the inferred proposal when given (a
    // project's constraints). Clears the undo history and the project path, and a model
    // reference that came from a project (it belongs to that project, not to this capture).
    void setLoaded(const QString &path, const LoadedCapturePtr &loaded, std::optional<ConstraintSet> saved = {});
    // The same for a capture analysed elsewhere (tests, in-memory captures).
    void setCapture(const QString &path, const Capture &capture, const InferenceResult &inference,
                    std::optional<ConstraintSet> saved = {});
    // A project opened from `projectPath`: the capture with the project's constraints,
    // model reference and options; the document is unmodified afterwards.
    void openProject(const QString &projectPath, const ProjectFile &project, const LoadedCapturePtr &loaded);
    void clear();
    // The capture path the project file holds, when the capture was opened from
    // elsewhere (the user located a moved capture): the document is modified until
    // saved with the new path.
    void setSavedCapturePath(const QString &path);

    // True while a capture is being opened into this document: edits, undo and redo
    // are refused until setLoaded/openProject (or a failed open) ends it.
    bool isLoading() const { return m_loading; }
    void setLoading(bool loading);

    // Applies `op` to a copy of the constraints; when it returns no error, pushes one
    // undo step holding the exact before/after sets. Returns the error otherwise (and
    // changes nothing).
    QString edit(const QString &undoText, const std::function<QString(ConstraintSet &)> &op);
    // Replaces the whole set in one undoable step ("Apply fixes"); no-op when equal.
    void replaceConstraints(const ConstraintSet &set, const QString &undoText);
    // What `op` would give, without applying it: the error, and the validation of the
    // result (for validate-as-you-type editors).
    QString tryEdit(const std::function<QString(ConstraintSet &)> &op, ValidationReport *report = nullptr) const;

    ProjectFile toProjectFile() const;
    // Writes the project atomically; on success the document is unmodified and
    // projectPath() is `path`.
    bool save(const QString &path, QString *error);
    bool isModified() const;

    // What this document's exports produced (or the .pt2 opened as the document), and
    // torch's shape decisions; cleared when another capture, or none, is opened.
    ExportResults *exportResults() const { return m_exportResults; }

signals:
    void captureChanged();
    void constraintsChanged();
    void validationChanged();
    void modelRefChanged();
    void exportOptionsChanged();
    void modifiedChanged(bool modified);
    void projectPathChanged();
    void loadingChanged(bool loading);

private:
    friend class ConstraintSetCommand;
    // Used by the undo commands.
    void applyConstraints(const ConstraintSet &set);
    void revalidate();
    void updateModified();

    QUndoStack *m_undoStack;
    DimColours *m_colours;
    ExportResults *m_exportResults;
    LoadedCapturePtr m_loaded;
    bool m_loading = false;
    std::unique_ptr<ConstraintValidator> m_validator;
    ConstraintSet m_constraints;
    ValidationReport m_validation;
    QString m_capturePath;
    QString m_projectPath;
    QString m_modelRef;
    bool m_modelRefFromProject = false;
    bool m_openingProject = false;
    ExportOptions m_options;
    QString m_savedModelRef;
    QString m_savedCapturePath;
    ExportOptions m_savedOptions;
    bool m_lastModified = false;
};

} // namespace dimscope
