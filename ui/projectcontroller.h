// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>

#include <functional>

class QWidget;

namespace dimscope {

class DocumentOpener;
class MessageBanner;
class ProjectDocument;

// The File and Export menu commands that act on the document as a whole: open a
// capture or project into it (DocumentOpener, after asking before dropping unsaved
// edits), save the project (atomic), copy the dynamic_shapes, save the constraints as
// JSON, edit the export options.
class ProjectController : public QObject
{
    Q_OBJECT
public:
    // Where a file dialog or message box would block (tests), these hooks answer.
    using SavePathHook = std::function<QString(const QString &suggested)>;

    ProjectController(ProjectDocument *document, MessageBanner *banner, QWidget *window);

    // Opening: open(path) and its progress, opened and failed signals.
    DocumentOpener *opener() const { return m_opener; }
    bool open(const QString &path);

    bool save();   // to projectPath(), or Save As when there is none
    bool saveAs(); // asks for a path
    bool saveTo(const QString &path);
    // True when the caller may drop the document: nothing unsaved, saved now, or the
    // user chose Discard.
    bool maybeSave();
    void copyDynamicShapes();
    bool saveConstraintsJson(const QString &path = {});
    void editExportOptions();

    void setSavePathHook(SavePathHook hook) { m_savePathHook = std::move(hook); }

signals:
    void saved(const QString &path);

private:
    QString askSavePath(const QString &title, const QString &filter, const QString &suffix, const QString &suggested);

    ProjectDocument *m_document;
    MessageBanner *m_banner;
    DocumentOpener *m_opener;
    QWidget *m_window;
    SavePathHook m_savePathHook;
};

} // namespace dimscope
