// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace dimscope {

// How to start the Python that runs the export worker (python -m dimscope.worker).
// discover() follows scripts/torch-python: $DIMSCOPE_PYTHON, then a provisioned
// private root ($DIMSCOPE_TORCH_ROOT, else runtime-$DIMSCOPE_RUNTIME under
// $DIMSCOPE_RUNTIMES_DIR, default /var/cache/dimscope; sid first, then trixie),
// then python3 on PATH. Discovery only looks at files; whether the interpreter really
// has torch >= 2.1 is checked by check() (blocking) or reported by the worker itself.
class PythonRuntime
{
public:
    enum class Source { Environment, TorchRoot, Path, Explicit };

    static PythonRuntime discover();
    // An interpreter chosen by the user (Preferences): used as is.
    static PythonRuntime fromInterpreter(const QString &python);

    bool isValid() const { return !m_program.isEmpty(); }
    Source source() const { return m_source; }
    QString sourceName() const;
    QString program() const { return m_program; }
    QStringList arguments() const { return m_arguments; } // before the script arguments
    // The minor version of Python 3 when the interpreter's file name says it (python3.13,
    // or a link to one, as in a virtual environment); -1 when it does not (a launcher
    // script such as scripts/torch-python).
    int minorVersion() const { return m_minor; }
    // The arguments that run Python source `code` / the export worker with nothing
    // importable from the folder the process starts in (docs/worker-protocol.md,
    // "Isolation"): -P where the interpreter is known to be 3.11 or newer, else a
    // first line that takes the current folder off sys.path before anything is imported.
    QStringList isolatedArguments(const QString &code) const;
    QStringList workerArguments() const;
    QString packageDir() const { return m_packageDir; }    // folder holding dimscope/
    // The environment to start the process with: PYTHONPATH (package first),
    // PYTHONHOME for the private root, unbuffered output.
    QProcessEnvironment environment() const;
    // program + arguments, as one line for messages
    QString commandLine() const;

    // Runs the interpreter (blocking, up to timeoutMs) and checks torch >= 2.1.
    // Returns false with a message in *error otherwise; *description gets
    // "python X, torch Y" on success.
    bool check(QString *error, QString *description = nullptr, int timeoutMs = 60000) const;

    // Where the dimscope Python package is: next to an installed binary
    // (<prefix>/share/dimscope/python), else the source tree of a build-tree binary.
    static QString findPackageDir();

private:
    Source m_source = Source::Path;
    QString m_program;
    QStringList m_arguments;
    int m_minor = -1;
    QString m_packageDir;
    QString m_pythonHome;
};

} // namespace dimscope
