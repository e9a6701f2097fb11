// SPDX-License-Identifier: GPL-3.0-or-later
// Saving never reports success over a short or emptied file (issue 26, item 4) and
// never writes over an input or a device (item 5): AtomicFile, OutputTarget and the core
// writers (projects, constraint sets) on a full disk, a read-only folder, a FIFO and a
// device node. The full disk and the read-only folder are a 64 KiB tmpfs of the test's
// own (SmallDisk, tests/common/smalldisk.h, says how it is made).
#include "smalldisk.h"

#include "project/projectfile.h"
#include "constraints/constraintsetjson.h"
#include "util/atomicfile.h"
#include "util/outputtarget.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include "deterministictestmain.h"

#include <functional>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

using namespace dimscope;
using namespace dimscope::test;

namespace {

using Writer = std::function<bool(const QString &path, QString *error)>;

ConstraintSet sampleSet()
{
    ConstraintSet set;
    const auto must = [](const QString &e) { if (!e.isEmpty()) qFatal("%s", qPrintable(e)); };
    must(set.addRootDim(QStringLiteral("batch"), 2, 64));
    must(set.setLeaf(QStringLiteral("input_ids"), {DimAssignment::named(QStringLiteral("batch")), DimAssignment::makeStatic()}));
    return set;
}

// The writers under test, by name; each writes something new over `path`.
Writer writerNamed(const QString &name)
{
    if (name == QLatin1String("AtomicFile, a buffered write"))
        return [](const QString &path, QString *error) { return AtomicFile::write(path, QByteArray(200, 'n'), error); };
    if (name == QLatin1String("AtomicFile, more than the disk holds"))
        return [](const QString &path, QString *error) { return AtomicFile::write(path, QByteArray(256 * 1024, 'n'), error); };
    if (name == QLatin1String("ProjectFile::write"))
        return [](const QString &path, QString *error) {
            ProjectFile project;
            project.modelRef = QStringLiteral("mypkg.models:make_model");
            project.constraints = sampleSet();
            return ProjectFile::write(path, project, error);
        };
    if (name == QLatin1String("ConstraintSetJson::writeFile"))
        return [](const QString &path, QString *error) { return ConstraintSetJson::writeFile(path, sampleSet(), error); };
    qFatal("no writer %s", qPrintable(name));
}

bool namesTheFile(const QString &name)
{
    return !name.startsWith(QLatin1String("AtomicFile")); // AtomicFile gives the reason; callers name the file
}

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("(cannot read)");
}

} // namespace

class TestAtomicFile : public QObject
{
    Q_OBJECT

private:
    static void writers()
    {
        QTest::addColumn<QString>("writer");
        for (const char *name : {"AtomicFile, a buffered write", "AtomicFile, more than the disk holds",
                                 "ProjectFile::write", "ConstraintSetJson::writeFile"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }

    // The user's file before the save: a few KB of their work.
    static QByteArray originalBytes() { return QByteArray("{\"the user's work\": true}\n").repeated(80); }

    // Given the user's file on the small disk; returns its path.
    static QString givenTheUsersFile()
    {
        const QString path = QDir(SmallDisk::folder()).filePath(QStringLiteral("work.dimscope"));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(originalBytes()) != originalBytes().size() || !f.flush())
            qFatal("cannot write %s", qPrintable(path));
        return path;
    }

    // What a user checks after a failed save: it said so, naming the file and the
    // cause; the file is byte for byte what it was; nothing was left beside it.
    static void thenTheSaveFailedAndTheFileIsIntact(bool saved, const QString &error, const QString &path,
                                                    const QString &writer, const QString &cause)
    {
        QVERIFY2(!saved, "the save reported success");
        QVERIFY2(error.contains(cause, Qt::CaseInsensitive), qPrintable(error));
        if (namesTheFile(writer))
            QVERIFY2(error.contains(path), qPrintable(error));
        QCOMPARE(readFile(path), originalBytes());
        QCOMPARE(SmallDisk::leftovers({QFileInfo(path).fileName()}), QStringList());
    }

private slots:
    void fullDiskKeepsTheFile_data() { writers(); }
    void fullDiskKeepsTheFile()
    {
        DIMSCOPE_ON_SMALL_DISK();
        QFETCH(QString, writer);
        const QString path = givenTheUsersFile();
        QVERIFY(SmallDisk::fill());
        QString error;
        const bool saved = writerNamed(writer)(path, &error);
        thenTheSaveFailedAndTheFileIsIntact(saved, error, path, writer, QStringLiteral("No space left on device"));
    }

    void readOnlyFolderKeepsTheFile_data() { writers(); }
    void readOnlyFolderKeepsTheFile()
    {
        DIMSCOPE_ON_SMALL_DISK();
        QFETCH(QString, writer);
        const QString path = givenTheUsersFile();
        QString error;
        QVERIFY2(SmallDisk::makeReadOnly(&error), qPrintable(error));
        const bool saved = writerNamed(writer)(path, &error);
        thenTheSaveFailedAndTheFileIsIntact(saved, error, path, writer, QStringLiteral("Read-only file system"));
    }

    void writesAndReplacesARegularFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("out.json"));
        QString error;
        QVERIFY2(AtomicFile::write(path, "first\n", &error), qPrintable(error));
        QVERIFY2(AtomicFile::write(path, "second\n", &error), qPrintable(error));
        QCOMPARE(readFile(path), QByteArray("second\n"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{QStringLiteral("out.json")});
    }

    // A FIFO or a device node where the output goes stays what it is, and nothing is
    // created beside it (a temporary file in /dev for `-o /dev/null`).
    void nonRegularTargetIsRefused_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::newRow("FIFO") << QStringLiteral("a FIFO (named pipe)");
        QTest::newRow("character device") << QStringLiteral("a character device");
        QTest::newRow("folder") << QStringLiteral("a directory");
    }
    void nonRegularTargetIsRefused()
    {
        QFETCH(QString, kind);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("out"));
        const QByteArray name = QFile::encodeName(path);
        if (kind.contains(QLatin1String("FIFO")))
            QVERIFY(::mkfifo(name.constData(), 0644) == 0);
        else if (kind.contains(QLatin1String("directory")))
            QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("out")));
        else if (::mknod(name.constData(), S_IFCHR | 0666, makedev(1, 3)) != 0) // /dev/null's numbers, in our folder
            QSKIP("mknod needs CAP_MKNOD (root); the FIFO row covers the same path");
        QString error;
        QVERIFY(!AtomicFile::write(path, "replaced\n", &error));
        QVERIFY2(error.contains(kind + QStringLiteral(", not a regular file")), qPrintable(error));
        struct stat st;
        QVERIFY(::lstat(name.constData(), &st) == 0);
        QVERIFY2(!S_ISREG(st.st_mode), "the node was replaced by a regular file");
        QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList{QStringLiteral("out")});
    }

    // /dev (devtmpfs, or a tmpfs in a container) is judged by what it holds: no new
    // file, not even a temporary one, is made in a folder of device nodes.
    void newFileInAFolderOfDevicesIsRefused()
    {
        QTemporaryDir dir;
        if (::mknod(QFile::encodeName(dir.filePath(QStringLiteral("null"))).constData(), S_IFCHR | 0666, makedev(1, 3)) != 0)
            QSKIP("mknod needs CAP_MKNOD (root)");
        const QString path = dir.filePath(QStringLiteral("out.json"));
        QString error;
        QVERIFY(!AtomicFile::write(path, "new\n", &error));
        QCOMPARE(error, QStringLiteral("is in %1, a folder of device nodes").arg(dir.path()));
        QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::System | QDir::Hidden | QDir::NoDotAndDotDot),
                 QStringList{QStringLiteral("null")});
        const QString why = OutputTarget::check({QStringLiteral("-o"), path}, {});
        QVERIFY2(why.startsWith(QStringLiteral("-o %1 is in %2, a folder of device nodes").arg(path, dir.path())), qPrintable(why));
    }

    // An output whose folder is missing, is not a folder or cannot be written is refused
    // up front, naming the folder; an existing device is still named a device first.
    void outputInAFolderThatCannotHoldItIsRefused()
    {
        QTemporaryDir dir;
        const QString missing = dir.filePath(QStringLiteral("no/such"));
        QCOMPARE(OutputTarget::folderReason(missing + QStringLiteral("/x.pt2")),
                 QStringLiteral("is in %1, a folder that does not exist (create it first)").arg(missing));
        QCOMPARE(OutputTarget::check({QStringLiteral("-o"), missing + QStringLiteral("/x.pt2")}, {}),
                 QStringLiteral("-o %1/x.pt2 is in %1, a folder that does not exist (create it first); choose another output file")
                     .arg(missing));
        const QString file = dir.filePath(QStringLiteral("file"));
        QString error;
        QVERIFY2(AtomicFile::write(file, "bytes", &error), qPrintable(error));
        QCOMPARE(OutputTarget::folderReason(file + QStringLiteral("/x.json")),
                 QStringLiteral("is in %1, which is a regular file, not a folder").arg(file));
        QCOMPARE(OutputTarget::folderReason(dir.filePath(QStringLiteral("x.pt2"))), QString());
        QCOMPARE(OutputTarget::check({QStringLiteral("--json"), dir.filePath(QStringLiteral("r.json"))}, {}), QString());
        QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot), QStringList{QStringLiteral("file")});
    }

    // A read-only folder is refused up front, for root too (root ignores a folder's mode
    // bits, not a read-only mount).
    void outputInAReadOnlyFolderIsRefused()
    {
        DIMSCOPE_ON_SMALL_DISK();
        QString error;
        QVERIFY2(SmallDisk::makeReadOnly(&error), qPrintable(error));
        const QString path = QDir(SmallDisk::folder()).filePath(QStringLiteral("out.pt2"));
        const QString why = OutputTarget::check({QStringLiteral("-o"), path}, {});
        QVERIFY2(why.startsWith(QStringLiteral("-o %1 is in %2, a folder this user cannot write to (").arg(path, SmallDisk::folder())),
                 qPrintable(why));
        QVERIFY2(why.endsWith(QStringLiteral("); choose another output file")), qPrintable(why));
    }

    // An output that is one of the inputs, however it is spelled.
    void outputThatIsAnInputIsRefused()
    {
        QTemporaryDir dir;
        const QString capture = dir.filePath(QStringLiteral("calls.safetensors"));
        QString error;
        QVERIFY2(AtomicFile::write(capture, "capture bytes", &error), qPrintable(error));
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("sub")));
        QVERIFY(QFile::link(capture, dir.filePath(QStringLiteral("link.pt2"))));
        const QList<OutputTarget::Input> inputs{{QStringLiteral("--capture"), capture}};
        for (const QString &spelling : {capture, dir.filePath(QStringLiteral("sub/../calls.safetensors")),
                                        dir.filePath(QStringLiteral("link.pt2"))}) {
            const QString why = OutputTarget::check({QStringLiteral("-o"), spelling}, inputs);
            QVERIFY2(why.startsWith(QStringLiteral("-o %1 is the same file as --capture %2").arg(spelling, capture)),
                     qPrintable(why));
        }
        QVERIFY(::link(QFile::encodeName(capture).constData(), QFile::encodeName(dir.filePath(QStringLiteral("hard"))).constData()) == 0);
        QVERIFY(!OutputTarget::check({QStringLiteral("-o"), dir.filePath(QStringLiteral("hard"))}, inputs).isEmpty());
        // Outputs that do not exist yet: the same name in the same folder, spelled differently.
        const QList<OutputTarget::Input> json{{QStringLiteral("-o"), dir.filePath(QStringLiteral("out.pt2"))}};
        const auto jsonAt = [](const QString &path) { return OutputTarget::Input{QStringLiteral("--json"), path}; };
        QVERIFY(!OutputTarget::check(jsonAt(dir.filePath(QStringLiteral("sub/../out.pt2"))), json).isEmpty());
        QCOMPARE(OutputTarget::check(jsonAt(dir.filePath(QStringLiteral("report.json"))), json), QString());
        QCOMPARE(OutputTarget::check(jsonAt(dir.filePath(QStringLiteral("other.pt2"))), inputs), QString());
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestAtomicFile)
#include "tst_atomicfile.moc"
