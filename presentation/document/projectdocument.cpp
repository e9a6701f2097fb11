// SPDX-License-Identifier: GPL-3.0-or-later
#include "document/projectdocument.h"

#include "document/constraintsetcommand.h"
#include "models/dimcolours.h"
#include "document/exportresults.h"
#include "constraints/constraintvalidator.h"

#include <QUndoStack>

namespace dimscope {

ProjectDocument::ProjectDocument(QObject *parent) : QObject(parent), m_undoStack(new QUndoStack(this)), m_colours(new DimColours(this)),
      m_exportResults(new ExportResults(this))
{
    connect(m_undoStack, &QUndoStack::cleanChanged, this, &ProjectDocument::updateModified);
}

ProjectDocument::~ProjectDocument() = default;

void ProjectDocument::setModelRef(const QString &modelRef)
{
    m_modelRefFromProject = false;
    if (modelRef == m_modelRef)
        return;
    m_modelRef = modelRef;
    emit modelRefChanged();
    updateModified();
}

void ProjectDocument::setExportOptions(const ExportOptions &options)
{
    if (options == m_options)
        return;
    m_options = options;
    emit exportOptionsChanged();
    updateModified();
}

const Capture &ProjectDocument::capture() const
{
    static const Capture none;
    return m_loaded ? m_loaded->capture : none;
}

const InferenceResult &ProjectDocument::inference() const
{
    static const InferenceResult none;
    return m_loaded ? m_loaded->inference : none;
}

void ProjectDocument::setLoading(bool loading)
{
    if (loading == m_loading)
        return;
    m_loading = loading;
    emit loadingChanged(loading);
}

void ProjectDocument::setCapture(const QString &path, const Capture &capture, const InferenceResult &inference,
                                 std::optional<ConstraintSet> saved)
{
    setLoaded(path, LoadedCapture::build(CaptureAnalysis{capture, inference}), std::move(saved));
}

void ProjectDocument::setLoaded(const QString &path, const LoadedCapturePtr &loaded, std::optional<ConstraintSet> saved)
{
    const bool dropModel = m_modelRefFromProject && !m_openingProject;
    if (dropModel) {
        m_modelRef.clear();
        m_modelRefFromProject = false;
    }
    m_undoStack->clear();
    m_loaded = loaded;
    m_capturePath = path;
    m_validator = std::make_unique<ConstraintValidator>(inference().table);
    m_constraints = saved ? std::move(*saved) : inference().constraints;
    m_colours->reset();
    m_colours->update(m_constraints);
    // The example call refers to a call of the previous capture.
    if (m_options.exampleCall >= inference().table.callCount()) {
        m_options.exampleCall = -1;
        emit exportOptionsChanged();
    }
    if (!m_projectPath.isEmpty()) {
        m_projectPath.clear();
        emit projectPathChanged();
    }
    m_savedModelRef = m_modelRef;
    m_savedOptions = m_options;
    m_savedCapturePath = m_capturePath;
    m_exportResults->clear(); // they were about the previous capture (before captureChanged:
                              // an export of it, cancelled then, is not awaited)
    setLoading(false);
    emit captureChanged();
    emit constraintsChanged();
    if (dropModel)
        emit modelRefChanged();
    revalidate();
    updateModified();
}

void ProjectDocument::openProject(const QString &projectPath, const ProjectFile &project, const LoadedCapturePtr &loaded)
{
    const bool refChanged = project.modelRef != m_modelRef;
    const bool optionsChanged = !(project.exportOptions == m_options);
    m_modelRef = project.modelRef;
    m_modelRefFromProject = !project.modelRef.isEmpty();
    m_options = project.exportOptions;
    m_openingProject = true;
    setLoaded(project.capturePath, loaded, project.constraints);
    m_openingProject = false;
    m_projectPath = projectPath;
    emit projectPathChanged();
    if (refChanged)
        emit modelRefChanged();
    if (optionsChanged)
        emit exportOptionsChanged();
    updateModified();
}

void ProjectDocument::setSavedCapturePath(const QString &path)
{
    m_savedCapturePath = path;
    updateModified();
}

void ProjectDocument::clear()
{
    m_undoStack->clear();
    m_loaded.reset();
    m_validator.reset();
    m_constraints = ConstraintSet();
    m_colours->reset();
    m_capturePath.clear();
    m_savedCapturePath.clear();
    m_projectPath.clear();
    if (m_modelRefFromProject) { // the closed project's model goes with it
        m_modelRef.clear();
        m_modelRefFromProject = false;
        emit modelRefChanged();
    }
    m_savedModelRef = m_modelRef;
    m_savedOptions = m_options;
    m_exportResults->clear();
    emit projectPathChanged();
    emit captureChanged();
    emit constraintsChanged();
    revalidate();
    updateModified();
}

QString ProjectDocument::edit(const QString &undoText, const std::function<QString(ConstraintSet &)> &op)
{
    if (m_loading)
        return tr("a capture is being opened: edits wait until it is shown");
    ConstraintSet after = m_constraints;
    const QString error = op(after);
    if (!error.isEmpty())
        return error;
    if (after == m_constraints)
        return {};
    m_undoStack->push(new ConstraintSetCommand(this, undoText, m_constraints, std::move(after)));
    return {};
}

void ProjectDocument::replaceConstraints(const ConstraintSet &set, const QString &undoText)
{
    if (m_loading || set == m_constraints)
        return;
    m_undoStack->push(new ConstraintSetCommand(this, undoText, m_constraints, set));
}

QString ProjectDocument::tryEdit(const std::function<QString(ConstraintSet &)> &op, ValidationReport *report) const
{
    ConstraintSet after = m_constraints;
    const QString error = op(after);
    if (error.isEmpty() && report)
        *report = m_validator ? m_validator->validate(after) : ValidationReport();
    return error;
}

ProjectFile ProjectDocument::toProjectFile() const
{
    ProjectFile project;
    project.capturePath = m_capturePath;
    project.modelRef = m_modelRef;
    if (m_loaded)
        project.constraints = m_constraints;
    project.exportOptions = m_options;
    return project;
}

bool ProjectDocument::save(const QString &path, QString *error)
{
    if (!ProjectFile::write(path, toProjectFile(), error))
        return false;
    m_savedModelRef = m_modelRef;
    m_savedOptions = m_options;
    m_undoStack->setClean();
    m_savedCapturePath = m_capturePath;
    if (m_projectPath != path) {
        m_projectPath = path;
        emit projectPathChanged();
    }
    updateModified();
    return true;
}

bool ProjectDocument::isModified() const
{
    return !m_undoStack->isClean() || m_modelRef != m_savedModelRef || !(m_options == m_savedOptions) ||
           m_capturePath != m_savedCapturePath;
}

void ProjectDocument::applyConstraints(const ConstraintSet &set)
{
    m_constraints = set;
    m_colours->update(m_constraints);
    emit constraintsChanged();
    revalidate();
}

ExportHints ProjectDocument::exportHints() const
{
    return hasCapture() ? ExportHints::compute(table(), m_constraints, AutoDims::find(inference(), m_constraints)) : ExportHints();
}

void ProjectDocument::revalidate()
{
    m_validation = m_validator ? m_validator->validate(m_constraints) : ValidationReport();
    emit validationChanged();
}

void ProjectDocument::updateModified()
{
    const bool modified = isModified();
    if (modified == m_lastModified)
        return;
    m_lastModified = modified;
    emit modifiedChanged(modified);
}

} // namespace dimscope
