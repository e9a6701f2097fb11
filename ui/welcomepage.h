// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;

namespace dimscope {

// What the main area shows while no document is open: the recent files with their
// folders, buttons to open the demo, a capture, a project or an exported program, and
// the few lines of Python that record a capture.
class WelcomePage : public QWidget
{
    Q_OBJECT
public:
    explicit WelcomePage(QWidget *parent = nullptr);

    // Re-reads the recent files (they change whenever a file is opened); done on
    // every show.
    void refresh();

    QListWidget *recentList() const { return m_recent; }
    QPlainTextEdit *recordSnippet() const { return m_snippet; }

    // The Python that records a capture of model.generate(), shown on the page.
    static QString recordingSnippet();

signals:
    void openFileRequested(const QString &path);
    void openDialogRequested();
    void openProjectDialogRequested();
    // File > New Recording…: a capture from a model folder and prompts, no Python.
    void newRecordingRequested();

protected:
    void showEvent(QShowEvent *event) override;

private:
    QWidget *createOpenColumn();
    QWidget *createRecordColumn();

    QListWidget *m_recent;
    QLabel *m_noRecent;
    QPlainTextEdit *m_snippet;
    QPushButton *m_demo;
};

} // namespace dimscope
