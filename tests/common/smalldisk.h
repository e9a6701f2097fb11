// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QtTest>

namespace dimscope::test {

// A folder on a 64 KiB file system of the test's own, for full-disk and read-only-folder
// tests of the writers.
//
// How a test gets its full disk: DIMSCOPE_ON_SMALL_DISK() at the top of a test function
// runs that same function (and data row) again in a child process of the same test
// binary, inside a private mount namespace with a 64 KiB tmpfs mounted over a fresh
// temporary folder: `unshare -m` when the test runs as root (CI does), else
// `unshare -Urm` (a user namespace, in which an ordinary user may mount a tmpfs). The
// child's result is the test's result, its output shown on failure. Nothing is mounted
// where the caller or the machine can see it; the mount ends with the child. Only where
// neither namespace can be made (no util-linux `unshare`, user namespaces disabled, a
// seccomp profile) is the test skipped, and the skip says why.
//
// Inside the child, folder() is the tmpfs; fill() fills it (a filler file grows until
// ENOSPC) and makeReadOnly() remounts it read-only (EROFS for every write, whatever the
// user's privileges: root ignores a folder's mode bits, not a read-only mount).
class SmallDisk
{
public:
    struct ChildResult {
        bool passed = false;
        QString output;     // the child's test log
        QString skipReason; // set when no namespace could be made
    };

    static bool inside();
    static QString folder();
    static ChildResult runCurrentTestInside();

    // True when the file system is full (the last write failed with ENOSPC).
    static bool fill();
    static bool makeReadOnly(QString *error);
    // Every name in folder() but the filler file and `expected`: what a writer left.
    static QStringList leftovers(const QStringList &expected);
};

} // namespace dimscope::test

// At the top of a test function: the rest of it runs on the small disk (see SmallDisk).
#define DIMSCOPE_ON_SMALL_DISK()                                                                   \
    do {                                                                                           \
        if (!dimscope::test::SmallDisk::inside()) {                                                \
            const dimscope::test::SmallDisk::ChildResult child = dimscope::test::SmallDisk::runCurrentTestInside(); \
            if (!child.skipReason.isEmpty())                                                       \
                QSKIP(qPrintable(child.skipReason));                                               \
            QVERIFY2(child.passed, qPrintable(child.output));                                      \
            return;                                                                                \
        }                                                                                          \
    } while (false)
