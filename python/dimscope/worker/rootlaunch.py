# SPDX-License-Identifier: GPL-3.0-or-later
"""Every program a provisioned runtime's Python starts goes through that root's loader
(issue 24 item 5; docs/worker-protocol.md, "Subprocesses of a provisioned runtime").

scripts/setup's runtimes are Debian roots run through their own dynamic loader
(`ROOT/lib64/ld-linux-x86-64.so.2 --library-path ... ROOT/usr/bin/python3.14`, see
scripts/torch-python). A program such a Python starts by its path alone is run by the
host's loader and dies on the host's glibc (`GLIBC_2.38 not found`): multiprocessing's
resource tracker and inductor's compile workers start `sys.executable`, inductor runs
the C++ compiler, and the compiler runs cc1plus, as and ld.

`route_subprocesses` points `sys.executable` (and multiprocessing, and the
PYTHONEXECUTABLE that the children inherit) at a small launcher script that starts the
interpreter through the loader again; `compiler` makes a `g++` that runs the root's
compiler, and the programs it runs, the same way, against the root's headers and
libraries. With an ordinary Python (no loader in front of the interpreter) both do
nothing.
"""

import hashlib
import os
import stat
import subprocess
import sys
import tempfile

from .errors import WorkerError

# The programs gcc runs by name from its own folders (found first in -B's folder).
_GCC_PROGRAMS = ("cc1plus", "cc1", "collect2", "lto-wrapper")
_BINUTILS = ("as", "ld")
_compiler = None  # the g++ launcher made once per process
# The interpreter itself, as it was before route_subprocesses pointed sys.executable at
# the launcher (what the worker's hello reports).
interpreter = sys.executable


def loader_prefix():
    """The dynamic loader and its options that this interpreter was started behind
    (freshcheck.interpreter_command without the interpreter), or [] when it was started
    by its path (an ordinary Python)."""
    from .freshcheck import interpreter_command

    return interpreter_command()[:-1]


def _folder():
    """A private folder for the launchers, the same for every process of this user (the
    scripts are named after their content, so concurrent writers agree)."""
    path = os.path.join(tempfile.gettempdir(), "dimscope-launchers-%d" % os.getuid())
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        # Someone else's or a link: never run scripts from there.
        return tempfile.mkdtemp(prefix="dimscope-launchers-")
    return path


def _shell_word(text):
    return "'" + text.replace("'", "'\\''") + "'"


def _script(name, body):
    """Writes the shell script `body` as NAME-<hash> into the launchers' folder (once:
    written to a temporary name and renamed); returns its path."""
    text = "#!/bin/sh\n# written by dimscope (python/dimscope/worker/rootlaunch.py)\n" + body
    folder = _folder()
    path = os.path.join(folder, "%s-%s" % (name, hashlib.sha256(text.encode()).hexdigest()[:16]))
    if not os.path.isfile(path):
        fd, tmp = tempfile.mkstemp(dir=folder)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o700)
        os.replace(tmp, path)
    return path


def _exec_line(prefix, program):
    return "exec %s %s \"$@\"\n" % (" ".join(_shell_word(w) for w in prefix), _shell_word(program))


def route_subprocesses():
    """Makes every Python this one starts by `sys.executable` (multiprocessing, inductor's
    compile workers, pip) start through the root's loader. Returns the launcher's path,
    or None for an ordinary Python (nothing changed)."""
    prefix = loader_prefix()
    if not prefix:
        return None
    from .freshcheck import interpreter_command

    home = os.environ.get("PYTHONHOME")
    body = ("export PYTHONHOME=%s\n" % _shell_word(home) if home else "") + _exec_line(
        prefix, interpreter_command()[-1])
    launcher = _script("python", body)
    sys.executable = launcher
    os.environ["PYTHONEXECUTABLE"] = launcher  # the children's sys.executable (and theirs)
    import multiprocessing

    multiprocessing.set_executable(launcher)  # the resource tracker, spawn and forkserver
    return launcher


def compiler():
    """The C++ compiler inductor should run: None where it finds its own (an ordinary
    Python, or $CXX set by the user), else a `g++` that runs the root's compiler through
    the root's loader with `--sysroot` at the root. Raises WorkerError("no_compiler")
    when the root has none (scripts/setup installs g++, libtorch-dev and python3-dev)."""
    global _compiler
    if _compiler is not None:
        return _compiler
    prefix = loader_prefix()
    if not prefix or os.environ.get("CXX"):
        return None
    usr = sys.base_prefix  # ROOT/usr: the root's Python lives there
    root = os.path.dirname(usr)
    gxx = os.path.join(usr, "bin", "g++")
    headers = [os.path.join(usr, "include", "ATen", "ATen.h"),
               os.path.join(usr, "include", "python%d.%d" % sys.version_info[:2], "Python.h")]
    missing = [p for p in [gxx] + headers if not os.path.exists(p)]
    if missing:
        raise WorkerError("no_compiler", "AOTInductor needs a C++ compiler, LibTorch's headers and Python's headers in "
                          "the runtime %s, which lacks %s: run scripts/setup (it installs g++, libtorch-dev and "
                          "python3-dev into the root)" % (root, ", ".join(missing)))
    # gcc's -B folder: the names it runs, linked to this root's launchers (one per root).
    folder = os.path.join(_folder(), "gcc-" + hashlib.sha256(root.encode()).hexdigest()[:16])
    os.makedirs(folder, 0o700, exist_ok=True)
    for name in _GCC_PROGRAMS:
        found = subprocess.run(prefix + [gxx, "-print-prog-name=%s" % name], capture_output=True, text=True,
                               check=False).stdout.strip()
        if os.path.isabs(found) and os.path.exists(found):
            _link(folder, name, _script(name, _exec_line(prefix, found)))
    for name in _BINUTILS:
        _link(folder, name, _script(name, _exec_line(prefix, os.path.join(usr, "bin", name))))
    # inductor adds the root Python's build-time library folder (-L/usr/lib/...), which
    # names the host's: every /usr path on the command line is the root's.
    body = ('root=%s\nfor a do\n  shift\n  case $a in\n    -L"$root"/*|-I"$root"/*) ;;\n'
            '    -L/usr/*) a="-L$root${a#-L}" ;;\n    -I/usr/*) a="-I$root${a#-I}" ;;\n  esac\n'
            '  set -- "$@" "$a"\ndone\n' % _shell_word(root))
    body += "exec %s %s -B%s/ --sysroot=%s \"$@\"\n" % (" ".join(_shell_word(w) for w in prefix), _shell_word(gxx),
                                                       _shell_word(folder), _shell_word(root))
    _compiler = _script("g++", body)
    return _compiler


def _link(folder, name, target):
    """`folder/name` -> target, the name gcc looks for in its -B folder."""
    path = os.path.join(folder, name)
    tmp = path + ".%d" % os.getpid()
    try:
        os.remove(tmp)
    except FileNotFoundError:
        pass
    os.symlink(target, tmp)
    os.replace(tmp, path)
