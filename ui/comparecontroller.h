// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QPointer>

class QAction;
class QWidget;

namespace dimscope {

class CompareDialog;
class LatestJob;
class ProjectDocument;

// Compare's actions (issue 28, problem 12): Export > Compare Exports… (two of the
// document's last exports, once there are two) and File > Compare Captures… (the
// document's capture and a second one the user picks, read off the GUI thread). One
// CompareDialog, not modal, shows either.
class CompareController : public QObject
{
    Q_OBJECT
public:
    // `window` parents the dialogs.
    CompareController(ProjectDocument *document, QWidget *window);
    ~CompareController() override;

    QAction *compareExportsAction() const { return m_exports; }
    QAction *compareCapturesAction() const { return m_captures; }

    void compareExports();
    // Asks for the second capture, then compareCaptureFile().
    void compareCaptures();
    // Compares the document's capture with the capture at `path` (read off the GUI
    // thread); the dialog shows it, or message() says why not.
    void compareCaptureFile(const QString &path);

signals:
    // A short message for the window's banner (a capture that could not be read).
    void message(const QString &text);

private:
    void updateActions();
    CompareDialog *ensureDialog();

    QPointer<ProjectDocument> m_document;
    QPointer<QWidget> m_window;
    QAction *m_exports;
    QAction *m_captures;
    QPointer<CompareDialog> m_dialog;
    LatestJob *m_reading;
};

} // namespace dimscope
