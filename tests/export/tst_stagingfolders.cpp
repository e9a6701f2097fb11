// SPDX-License-Identifier: GPL-3.0-or-later
// What the client removes once it has reaped a worker it killed (StagingFolders): that
// worker's staging folders, marked for its pid, and the one it was killed in making
// (empty, or holding only a part-written marker); nothing else in the output folder.
#include "export/stagingfolders.h"

#include "deterministictestmain.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

using namespace dimscope;

namespace {
const qint64 kPid = 4242;
const QByteArray kMarkerText = "dimscope export staging folder of pid 4242\n";

bool write(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}
} // namespace

class TstStagingFolders : public QObject
{
    Q_OBJECT
private slots:
    void removesTheKilledWorkersFoldersOnly();
};

void TstStagingFolders::removesTheKilledWorkersFoldersOnly()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QDir out(dir.path());
    const auto folder = [&out](const QString &name, const QByteArray &marker, const QStringList &others = {}) {
        out.mkdir(name);
        if (!marker.isNull())
            write(out.filePath(name + QStringLiteral("/dimscope-staging-folder.marker")), marker);
        for (const QString &other : others)
            write(out.filePath(name + QLatin1Char('/') + other), "data");
        return name;
    };
    const QStringList removed{
        folder(QStringLiteral(".dimscope-save-4242-saving"), kMarkerText, {QStringLiteral("half.safetensors")}),
        folder(QStringLiteral(".dimscope-save-4242-justmade"), QByteArray()),
        folder(QStringLiteral(".dimscope-save-4242-emptymarker"), QByteArray("")),
        folder(QStringLiteral(".dimscope-save-4242-halfmarker"), kMarkerText.left(20)),
    };
    const QStringList kept{
        folder(QStringLiteral(".dimscope-save-4242-unmarked"), QByteArray(), {QStringLiteral("keep")}),
        folder(QStringLiteral(".dimscope-save-4242-halfandmore"), kMarkerText.left(20), {QStringLiteral("keep")}),
        folder(QStringLiteral(".dimscope-save-4242-othertext"), "not dimscope's marker\n"),
        folder(QStringLiteral(".dimscope-save-4242-otherpid"), "dimscope export staging folder of pid 4243\n"),
        folder(QStringLiteral(".dimscope-save-4243-another"), QByteArray()),
        folder(QStringLiteral(".precious-4242"), QByteArray()),
    };
    // A link named like a staging folder, to a folder holding the marker: never followed.
    const QString victim = folder(QStringLiteral("victim"), kMarkerText);
    QVERIFY(QFile::link(out.filePath(victim), out.filePath(QStringLiteral(".dimscope-save-4242-link"))));
    // Inside a folder that goes: a subfolder goes with it, a link goes without its target.
    QVERIFY(out.mkpath(QStringLiteral(".dimscope-save-4242-saving/sub/deeper")));
    QVERIFY(QFile::link(out.filePath(victim), out.filePath(QStringLiteral(".dimscope-save-4242-saving/into-victim"))));

    StagingFolders::removeLeftBy(kPid, {out.path()});

    for (const QString &name : removed)
        QVERIFY2(!QFileInfo::exists(out.filePath(name)), qPrintable(name));
    for (const QString &name : kept + QStringList{victim, QStringLiteral(".dimscope-save-4242-link")})
        QVERIFY2(QFileInfo(out.filePath(name)).isDir(), qPrintable(name));
    QVERIFY(QFileInfo::exists(out.filePath(QStringLiteral(".dimscope-save-4242-unmarked/keep"))));
    QVERIFY(QFileInfo::exists(out.filePath(QStringLiteral(".dimscope-save-4242-halfandmore/keep"))));
    QVERIFY(QFileInfo::exists(out.filePath(victim + QStringLiteral("/dimscope-staging-folder.marker"))));
}

DIMSCOPE_GUILESS_TEST_MAIN(TstStagingFolders)
#include "tst_stagingfolders.moc"
