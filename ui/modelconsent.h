// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QMap>
#include <QString>
#include <QStringList>
#include <QVector>

class QWidget;

namespace dimscope {

// Running a project's model is the user's choice (docs/security.md, "Projects"). A
// `.dimscope` project names a model reference that Export imports and runs in the
// worker; a project may come from anyone, so its export asks first, showing what will
// run, and remembers a yes.
//
// The question and the answer are about what runs, never about the text: the
// reference is resolved first (ModelReference: a file against the project's folder,
// to its canonical path). A yes is keyed on the project's place, the resolved
// reference and, for a file, the SHA-256 of its content: a moved project, another
// file or a changed file asks again. Exempt: modules of dimscope's own package (its
// demo, which the worker can only load from its own installation) and models the
// user chose in this session. A reference that claims dimscope's package but holds a
// path is refused, never asked about.
class ModelConsent
{
public:
    // One remembered yes, as Preferences lists it.
    struct Approval {
        QString project;   // canonical path of the project file
        QString model;     // the resolved reference: "/abs/model.py:make", "pkg.mod:make", a folder
        QString sha256;    // hex SHA-256 of a file model's content; empty for modules and folders
        QString entry;     // the stored form, for revoke()
        bool dimscopeOwn = false; // a module of dimscope's package: never asked about

        QString describe() const; // one line for a list
    };

    // Why the reference of the project at `projectPath` is never run (a disguised
    // "dimscope." path, a reference the worker cannot read, a model file that cannot be
    // read); empty when it may run.
    static QString refusal(const QString &projectPath, const QString &modelRef);
    // True when exporting `modelRef` of the project at `projectPath` needs the user's
    // yes (also when it is refused).
    static bool needsApproval(const QString &projectPath, const QString &modelRef);
    static void approve(const QString &projectPath, const QString &modelRef);
    // The question (a modal message box, objectName "modelConsentDialog"); true when the
    // user chose to run the model. Remembers a yes.
    static bool ask(QWidget *parent, const QString &projectPath, const QString &modelRef);

    // A Hugging Face folder whose auto_map names code of its own, before a recording
    // (issue 21): the question names the JSON files that ask and each Python file with
    // its SHA-256 (a modal message box, objectName "remoteCodeConsentDialog", button
    // "runRemoteCodeButton"); true when the user agreed to run exactly these files.
    // The yes is for this recording only (the worker checks the hashes it was given).
    static bool askRemoteCode(QWidget *parent, const QString &folder, const QStringList &sources,
                              const QMap<QString, QString> &files);

    // An inputs script the user named in the New Recording dialog (issue 21): the
    // question names the reference, its file and the file's SHA-256 (a modal message
    // box, objectName "inputsScriptConsentDialog", button "runInputsScriptButton"; for a
    // module's function, `file` and `sha256` are empty: Python finds it). True when the
    // user agreed; the yes is for this recording only (the worker checks the hash).
    static bool askInputsScript(QWidget *parent, const QString &reference, const QString &file, const QString &sha256);

    static QVector<Approval> approvals();
    // Forgets the approvals whose entry is given; the next export of their project asks.
    static void revoke(const QStringList &entries);

private:
    // The approval exporting `modelRef` of `projectPath` would need; false with *error
    // when the reference is refused.
    static bool approvalFor(const QString &projectPath, const QString &modelRef, Approval *approval, QString *error);
    static QStringList stored();
};

} // namespace dimscope
