// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QString>

namespace dimscope {

// Whether a path may be written as a command's output: it must not be one of the
// command's inputs, when it exists it must be a regular file, and its folder must
// exist, be writable and not be a folder of device nodes such as /dev.
//
// Why: `export -o capture.safetensors` or `--json model.py` (a tab-completion slip)
// replaced the input with exit 0, and `-o /dev/null` as root renamed a regular file
// over the device node. Inputs are compared as files (device and inode, symlinks
// followed), so another spelling of the same path or a symlink to it is caught too;
// an output that does not exist yet is compared by its folder's identity and name.
class OutputTarget
{
public:
    struct Input {
        QString role; // how the user named it: "--capture", "-o", "the model file of --model"
        QString path;
    };

    // Empty when `output` may be written, else one line naming the output and why not:
    // "-o calls.safetensors is the same file as --capture ./calls.safetensors, an input
    // of this command; choose another output file".
    static QString check(const Input &output, const QList<Input> &inputs);
    // Empty when `path` may be replaced by a new regular file, else why not, in words
    // that follow the path: "is a character device, not a regular file" (an existing
    // output that is not a regular file, symlinks followed), "is in /dev, a folder of
    // device nodes" (nothing, not even a temporary file, is created there: /dev is a
    // tmpfs in many containers, so the folder is judged by what it holds).
    static QString placeReason(const QString &path);
    // Empty when the folder `path` would be written in exists, is a folder and this user
    // may create files in it, else why not, in words that follow the path: "is in
    // /no/such, a folder that does not exist". Why: a missing folder was found only by
    // the worker, after the model had loaded, once per phase, with exit 1.
    static QString folderReason(const QString &path);
    // Both paths name the same file (or, when neither exists, the same name in the same
    // folder).
    static bool sameFile(const QString &a, const QString &b);
};

} // namespace dimscope
