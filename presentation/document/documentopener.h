// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "models/loadedcapture.h"
#include "project/projectfile.h"

#include <QObject>
#include <QString>

#include <functional>
#include <optional>

namespace dimscope {

class CaptureLoader;
class ProjectDocument;
class ProjectLoader;
class Pt2Loader;
struct Pt2Program;

// Opens a capture, a .dimscope project or an exported program (.pt2) into the
// document: the project is read (ProjectLoader), the capture read and analysed
// (CaptureLoader), the program read (Pt2Loader), all off the GUI thread; the document
// is read-only while the capture loads, and on success the document gets the capture
// with the project's constraints, model and options. A .pt2 is a document of its
// own: the document is emptied and the program becomes its ExportResults. What is
// being opened (the project file, its parsed content) is this object's pending state
// until the loader answers; a new open supersedes it.
class DocumentOpener : public QObject
{
    Q_OBJECT
public:
    DocumentOpener(ProjectDocument *document, QObject *parent = nullptr);

    // Asked once the file is known to be openable, before the document is replaced
    // (ProjectController::maybeSave): false keeps the document and opens nothing.
    void setMayReplaceHook(std::function<bool()> hook) { m_mayReplace = std::move(hook); }

    // A capture (.safetensors), a project (.dimscope) or a .pt2. Returns false when it
    // does not start: after emitting failed (no such file), or when the user kept the
    // current document. A project is read first, off the GUI thread: that it cannot be
    // read, or its capture is not there, comes later through failed (and captureMissing).
    bool open(const QString &path);
    // A project whose capture moved: opens it with the capture at `relocatedCapture`
    // instead (the document is then modified until saved with the new path). An
    // empty `relocatedCapture` is open(path).
    bool openProject(const QString &path, const QString &relocatedCapture);
    // A capture built in memory (tests, generated captures), through the same path.
    void openCapture(const Capture &capture, const QString &label);
    void cancel();
    bool isOpening() const;

signals:
    void progress(const QString &label, int done, int total);
    void opened(const QString &label);
    void failed(const QString &label, const QString &error);
    // After failed: the project at `projectPath` names a capture that is not there
    // (the window offers to locate it).
    void captureMissing(const QString &projectPath, const QString &capturePath);

private:
    // The rest of openProject once the project is read (on the GUI thread).
    void continueProject(const QString &path, dimscope::ProjectFile file);
    void beginOpening(const QString &capturePath, bool inMemory);
    void openPt2(const QString &path);
    void onPt2Read(const QString &path, const QVector<dimscope::Pt2Program> &programs);
    void onLoaded(const QString &label, const LoadedCapturePtr &loaded);
    void finishFailed(const QString &label, const QString &error);

    // A .dimscope being opened. `file.capturePath` is the capture that is read; when
    // the user located a moved capture it differs from `savedCapturePath`, the path the
    // project file names, and the opened document is modified until saved.
    struct PendingProject {
        QString path;
        ProjectFile file;
        QString savedCapturePath;
        bool isRelocated() const { return file.capturePath != savedCapturePath; }
    };

    ProjectDocument *m_document;
    CaptureLoader *m_loader;
    ProjectLoader *m_projectLoader;
    Pt2Loader *m_pt2Loader;
    QString m_relocatedCapture; // for the project being read
    std::function<bool()> m_mayReplace;
    QString m_capturePath;              // the capture being opened (a label when in memory)
    bool m_inMemory = false;
    std::optional<PendingProject> m_project;
};

} // namespace dimscope
