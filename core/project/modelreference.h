// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDir>
#include <QString>

#include <optional>

namespace dimscope {

// A model reference decided the way the export worker decides it
// (python/dimscope/worker/modelref.py), from the text and the disk, without running anything:
//
// - a folder (the whole text is one, or there is no ':') - a Hugging Face model folder;
// - `path/to/file.py:callable` - a Python file the worker executes;
// - `package.module:callable` - a module the worker imports from its Python environment.
//
// File and folder paths are made absolute against a base folder: the project's folder
// for a project's reference (docs/project-format.md), the working directory for one
// the user typed. Consent (ui/modelconsent.h) is decided on what this resolves to,
// never on the text: "dimscope./../evil.py:make" is a file outside dimscope, not
// dimscope's demo, and is refused outright (isDisguised).
class ModelReference
{
public:
    enum class Kind { Folder, File, Module };

    // The reference `text` resolved against `base`; nullopt with *error for one the
    // worker would refuse or misread (a disguised "dimscope." path, a module name that
    // is no dotted Python name, a missing callable). The error names the reference and
    // the character at fault.
    static std::optional<ModelReference> resolve(const QString &text, const QDir &base, QString *error);
    // A project's reference as the project keeps it in memory: file and folder paths
    // absolute against the project's folder, anything else (a module, or a reference
    // resolve() refuses) unchanged, so that the refusal is given when it would run.
    static QString absoluteIn(const QString &text, const QDir &base);
    // The inverse for saving: file and folder paths relative to `base`, written so that
    // absoluteIn() gives `text` back.
    static QString relativeIn(const QString &text, const QDir &base);
    // Why `text` claims dimscope's own package ("dimscope.…") but holds a path ('/',
    // '\\' or ".."); empty when it does not. Such a reference is never run.
    static QString disguise(const QString &text);
    // A reference typed on a command line (dimscope-cli export and record): refused with
    // *error when disguised (before anything starts, as the worker and the GUI refuse
    // it), else absolute against `cwd`, because the worker runs in a private folder
    // (docs/worker-protocol.md, "Isolation") and a relative file or folder is the one
    // in the folder the command was started in.
    static std::optional<QString> fromCommandLine(const QString &text, const QDir &cwd, QString *error);

    Kind kind() const { return m_kind; }
    // File: the .py path; Folder: the folder; absolute and clean (symbolic links kept,
    // '..' cut from the text: what text() gives the worker).
    QString path() const { return m_path; }
    // path() with symbolic links resolved: the file the worker opens for text(); empty
    // when it does not exist. Consent is given to this (and the file's content).
    QString canonicalPath() const;
    QString module() const { return m_module; } // Module: the dotted name
    QString callable() const { return m_callable; } // File, Module: the attribute path
    // The reference the worker gets: absolute for files and folders.
    QString text() const;
    // A module of dimscope's own package (its demo): the worker imports `dimscope` from
    // its own installation before it reads any request, so `dimscope.<names>` can only
    // load from there. Never true for a file or a folder.
    bool isDimscopeOwn() const;

private:
    Kind m_kind = Kind::Module;
    QString m_path;
    QString m_module;
    QString m_callable;
};

} // namespace dimscope
