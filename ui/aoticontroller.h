// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QPointer>

class QAction;
class QDialog;
class QPlainTextEdit;
class QWidget;

namespace dimscope {

class ExportClient;
class ProjectDocument;

// Export > Compile with AOTInductor… (issue 24 item 5): the document's exported
// program compiled by a worker of its own (the `aoti` request that dimscope-cli aoti
// sends, core's AotiRequest), the package replayed next to the program in a new
// interpreter on the document's capture, and AotiReport's lines shown in a dialog (not
// modal). Enabled once the document has an exported program and its capture; the
// model goes with the request when the document has one (the export ran it already,
// with the user's consent). Cancel Compile kills that worker; a compile never blocks the
// GUI thread (the worker's answer arrives through ExportClient's signals).
class AotiController : public QObject
{
    Q_OBJECT
public:
    // `exportClient`: the export's client, whose interpreter the compile uses.
    AotiController(ProjectDocument *document, ExportClient *exportClient, QWidget *window);
    ~AotiController() override;

    QAction *compileAction() const { return m_compile; }
    QAction *cancelAction() const { return m_cancel; }
    bool isRunning() const { return m_requestId >= 0; }
    // The program the action compiles: the first program's file of the last export.
    QString programPath() const;

    void compile(const QString &device = QStringLiteral("cpu"));
    void cancel();

signals:
    // Progress and outcome in a few words, for the window's status bar.
    void message(const QString &text);

private:
    void updateActions();
    void onFinished(int id);
    void showReport(const QString &title, const QString &text);

    QPointer<ProjectDocument> m_document;
    QPointer<ExportClient> m_exportClient;
    QPointer<QWidget> m_window;
    ExportClient *m_client = nullptr; // created on the first compile
    QAction *m_compile;
    QAction *m_cancel;
    QPointer<QDialog> m_dialog;
    QPlainTextEdit *m_text = nullptr;
    int m_requestId = -1;
};

} // namespace dimscope
