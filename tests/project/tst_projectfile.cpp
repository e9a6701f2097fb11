// SPDX-License-Identifier: GPL-3.0-or-later
#include "hostilefiles.h"

#include "project/projectfile.h"
#include "constraints/constraintsetjson.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include "deterministictestmain.h"

using namespace dimscope;
using namespace dimscope::test;

class TestProjectFile : public QObject
{
    Q_OBJECT

private:
    static ConstraintSet sampleSet()
    {
        ConstraintSet set;
        const auto must = [](const QString &e) { if (!e.isEmpty()) qFatal("%s", qPrintable(e)); };
        must(set.addRootDim(QStringLiteral("batch"), 2, 64));
        must(set.addRootDim(QStringLiteral("past_len"), 0, std::nullopt));
        must(set.addDerivedDim(QStringLiteral("total_len"), QStringLiteral("past_len"), 1, 1));
        must(set.setLeaf(QStringLiteral("input_ids"),
                                   {DimAssignment::named(QStringLiteral("batch")), DimAssignment::makeStatic()})
                           );
        must(set.setLeaf(QStringLiteral("attention_mask"),
                                   {DimAssignment::named(QStringLiteral("batch")),
                                    DimAssignment::named(QStringLiteral("total_len"))})
                           );
        return set;
    }
    static void write(const QString &path, const QByteArray &bytes)
    {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes);
    }

private slots:
    void roundTripKeepsEverything()
    {
        QTemporaryDir dir;
        ProjectFile project;
        project.capturePath = dir.filePath(QStringLiteral("captures/calls.safetensors"));
        project.modelRef = QStringLiteral("mypkg.models:make_model");
        project.constraints = sampleSet();
        project.exportOptions.device = QStringLiteral("cuda");
        project.exportOptions.exampleCall = 3;
        project.exportOptions.strict = true;
        project.exportOptions.fixLoop = false;
        project.exportOptions.separatePrograms = true;
        project.exportOptions.heldOutCapture = dir.filePath(QStringLiteral("captures/other.safetensors"));
        const QString path = dir.filePath(QStringLiteral("p.dimscope"));
        QString error;
        QVERIFY2(ProjectFile::write(path, project, &error), qPrintable(error));
        auto back = ProjectFile::read(path, &error);
        QVERIFY2(back, qPrintable(error));
        QVERIFY(*back == project);
        // The capture and the held-out capture are stored relative to the project, so
        // the folder can move.
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY(text.contains("\"capture\": \"captures/calls.safetensors\""));
        QVERIFY(text.contains("\"verify_with\": \"captures/other.safetensors\""));
    }

    void writesKeysInDocumentedOrderWithTwoSpaceIndent()
    {
        // Given a project with every key set
        QTemporaryDir dir;
        ProjectFile project;
        project.capturePath = dir.filePath(QStringLiteral("calls.safetensors"));
        project.modelRef = QStringLiteral("mypkg.models:make_model");
        project.constraints = sampleSet();
        const QString path = dir.filePath(QStringLiteral("p.dimscope"));
        QVERIFY(ProjectFile::write(path, project, nullptr));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        // Then the top-level keys come in the order of docs/project-format.md, not sorted
        const QList<QByteArray> lines = text.split('\n');
        QStringList topKeys;
        for (const QByteArray &line : lines)
            if (line.startsWith("  \"") && !line.startsWith("   "))
                topKeys << QString::fromUtf8(line.mid(3, line.indexOf('"', 3) - 3));
        QCOMPARE(topKeys, (QStringList{QStringLiteral("format"), QStringLiteral("version"), QStringLiteral("capture"),
                                       QStringLiteral("model"), QStringLiteral("constraints"), QStringLiteral("export")}));
        QVERIFY(text.contains("  \"export\": {\n    \"device\": \"cpu\",\n    \"call\": null,\n    \"strict\": false,\n"
                              "    \"fix_loop\": true\n  }\n}\n"));
        // and every line is indented by a multiple of two spaces, no tabs, and the
        // constraint set sits exactly one level (two spaces) deeper than on its own
        for (const QByteArray &line : lines) {
            qsizetype indent = 0;
            while (indent < line.size() && line.at(indent) == ' ')
                ++indent;
            QVERIFY2(!line.contains('\t') && indent % 2 == 0, line.constData());
        }
        QVERIFY(text.contains("  \"constraints\": {\n    \"format\": \"dimscope.constraints\",\n"));
        QVERIFY(text.contains("\n      \"input_ids\": [\"batch\", \"static\"],\n"));
        // and writing what was read gives the same bytes (no diff without an edit)
        const std::optional<ProjectFile> back = ProjectFile::read(path, nullptr);
        QVERIFY(back);
        QCOMPARE(ProjectFile::toJson(*back, path), text);
    }

    void movedFolderStillFindsTheCapture()
    {
        QTemporaryDir a, b;
        ProjectFile project;
        project.capturePath = a.filePath(QStringLiteral("c.safetensors"));
        QVERIFY(ProjectFile::write(a.filePath(QStringLiteral("p.dimscope")), project, nullptr));
        QVERIFY(QFile::copy(a.filePath(QStringLiteral("p.dimscope")), b.filePath(QStringLiteral("p.dimscope"))));
        auto moved = ProjectFile::read(b.filePath(QStringLiteral("p.dimscope")), nullptr);
        QVERIFY(moved);
        QCOMPARE(moved->capturePath, b.filePath(QStringLiteral("c.safetensors")));
    }

    // A file name may start with ':', which QDir reads as a Qt resource path.
    void captureNamedWithALeadingColonIsTheFileBesideTheProject()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("p.dimscope"));
        write(path, R"({"format": "dimscope.project", "version": 1, "capture": ":c.safetensors"})");
        const std::optional<ProjectFile> project = ProjectFile::read(path, nullptr);
        QVERIFY(project);
        QCOMPARE(project->capturePath, dir.path() + QStringLiteral("/:c.safetensors"));
        QVERIFY(ProjectFile::write(path, *project, nullptr));
        const std::optional<ProjectFile> back = ProjectFile::read(path, nullptr);
        QVERIFY(back);
        QCOMPARE(back->capturePath, project->capturePath);
    }

    // Issue 26 item 3: a project's "model.py:make" is the file beside the project, like
    // its capture, not a file in whatever folder dimscope was started from; saving writes
    // it back relative, byte for byte.
    void relativeModelFileIsTheOneBesideTheProject()
    {
        QTemporaryDir projectDir, elsewhere;
        QVERIFY(QDir(projectDir.path()).mkdir(QStringLiteral("hf")));
        const QString path = projectDir.filePath(QStringLiteral("p.dimscope"));
        const QString before = QDir::currentPath();
        QVERIFY(QDir::setCurrent(elsewhere.path()));
        struct Restore { QString path; ~Restore() { QDir::setCurrent(path); } } restore{before};
        const auto readModel = [&](const QByteArray &model, QString *written) {
            write(path, R"({"format": "dimscope.project", "version": 1, "model": )" + model + "}");
            const std::optional<ProjectFile> project = ProjectFile::read(path, nullptr);
            if (!project)
                return QStringLiteral("(refused)");
            const QByteArray json = ProjectFile::toJson(*project, path);
            const qsizetype at = json.indexOf("\"model\": ");
            *written = QString::fromUtf8(json.mid(at + 9, json.indexOf('\n', at) - at - 10));
            return project->modelRef;
        };
        const QString base = QFileInfo(projectDir.path()).absoluteFilePath();
        QString written;
        QCOMPARE(readModel(R"("evil_model.py:make")", &written), base + QStringLiteral("/evil_model.py:make"));
        QCOMPARE(written, QStringLiteral("\"evil_model.py:make\""));
        QCOMPARE(readModel(R"("../models/m.py:Factory.build")", &written),
                 QFileInfo(base).absolutePath() + QStringLiteral("/models/m.py:Factory.build"));
        QCOMPARE(written, QStringLiteral("\"../models/m.py:Factory.build\""));
        QCOMPARE(readModel(R"("hf")", &written), base + QStringLiteral("/hf")); // a Hugging Face folder
        QCOMPARE(written, QStringLiteral("\"hf\""));
        // A module is found in the worker's Python environment: kept as written.
        QCOMPARE(readModel(R"("pkg.models:make_model")", &written), QStringLiteral("pkg.models:make_model"));
        QCOMPARE(readModel(R"("dimscope.demo:make_model")", &written), QStringLiteral("dimscope.demo:make_model"));
        // A path dressed as dimscope's package is never resolved into a file path (the
        // GUI and the worker refuse it as written).
        QCOMPARE(readModel(R"("dimscope./../evil_model.py:make")", &written), QStringLiteral("dimscope./../evil_model.py:make"));
        QCOMPARE(written, QStringLiteral("\"dimscope./../evil_model.py:make\""));
        // A file in a folder named "dimscope.x" is written so that it reads back as that file.
        QCOMPARE(readModel(R"("./dimscope.x/m.py:make")", &written), base + QStringLiteral("/dimscope.x/m.py:make"));
        QCOMPARE(written, QStringLiteral("\"./dimscope.x/m.py:make\""));
    }

    void movedFolderStillFindsTheModelFile()
    {
        QTemporaryDir a, b;
        ProjectFile project;
        project.modelRef = a.filePath(QStringLiteral("model.py")) + QStringLiteral(":make");
        QVERIFY(ProjectFile::write(a.filePath(QStringLiteral("p.dimscope")), project, nullptr));
        QVERIFY(QFile::copy(a.filePath(QStringLiteral("p.dimscope")), b.filePath(QStringLiteral("p.dimscope"))));
        const auto moved = ProjectFile::read(b.filePath(QStringLiteral("p.dimscope")), nullptr);
        QVERIFY(moved);
        QCOMPARE(moved->modelRef, b.filePath(QStringLiteral("model.py")) + QStringLiteral(":make"));
    }

    void withoutConstraintsMeansInferred()
    {
        QTemporaryDir dir;
        ProjectFile project;
        project.modelRef = QStringLiteral("x.py:M");
        const QString path = dir.filePath(QStringLiteral("p.dimscope"));
        QVERIFY(ProjectFile::write(path, project, nullptr));
        auto back = ProjectFile::read(path, nullptr);
        QVERIFY(back);
        QVERIFY(!back->constraints.has_value());
        QCOMPARE(back->exportOptions.exampleCall, -1);
    }

    void bundledDemoProjectOpens()
    {
        const QString path = QStringLiteral(DIMSCOPE_SOURCE_DIR "/resources/demo/demo.dimscope");
        QString error;
        auto demo = ProjectFile::read(path, &error);
        QVERIFY2(demo, qPrintable(error));
        QVERIFY(QFile::exists(demo->capturePath));
        QCOMPARE(demo->modelRef, QStringLiteral("dimscope.demo:make_model"));
        QVERIFY(demo->constraints && demo->constraints->dim(QStringLiteral("past_len")));
    }

    void badDocuments_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("error");
        QTest::newRow("not json") << QByteArray("{\"format\": ") << "bad.dimscope: invalid JSON at offset";
        QTest::newRow("array") << QByteArray("[]") << "bad.dimscope: the document is not a JSON object";
        QTest::newRow("other format") << QByteArray(R"({"format": "dimscope.constraints", "version": 1})")
                                      << "bad.dimscope: format: expected \"dimscope.project\"";
        QTest::newRow("future version") << QByteArray(R"({"format": "dimscope.project", "version": 7})")
                                        << "bad.dimscope: version: 7 is not supported (this dimscope reads version 1)";
        QTest::newRow("capture type") << QByteArray(R"({"format": "dimscope.project", "version": 1, "capture": 3})")
                                      << "bad.dimscope: capture: expected a path string or null";
        QTest::newRow("capture with an unpaired surrogate")
            << QByteArray(R"({"format": "dimscope.project", "version": 1, "capture": "calls\ud800.safetensors"})")
            << "bad.dimscope: capture: the path is not valid Unicode (an unpaired surrogate), so no file has it";
        QTest::newRow("model with an unpaired surrogate")
            << QByteArray(R"({"format": "dimscope.project", "version": 1, "model": "pkg.mod:make\udc00"})")
            << "bad.dimscope: model: the reference is not valid Unicode (an unpaired surrogate), so no module has it";
        QTest::newRow("bad constraints")
            << QByteArray(R"({"format": "dimscope.project", "version": 1, "constraints": {"format": "dimscope.constraints", "version": 1, "dims": [{"name": "b", "min": "x", "max": null}], "leaves": {}}})")
            << "bad.dimscope: constraints: dims[0].min";
        QTest::newRow("device") << QByteArray(R"({"format": "dimscope.project", "version": 1, "export": {"device": "tpu"}})")
                                << "bad.dimscope: export.device: \"tpu\" is neither \"cpu\" nor \"cuda\"";
        QTest::newRow("call") << QByteArray(R"({"format": "dimscope.project", "version": 1, "export": {"call": -2}})")
                              << "bad.dimscope: export.call: expected a call index >= 0 or null";
        QTest::newRow("fix_loop") << QByteArray(R"({"format": "dimscope.project", "version": 1, "export": {"fix_loop": "yes"}})")
                                  << "bad.dimscope: export.fix_loop: expected true or false";
        QTest::newRow("separate_programs")
            << QByteArray(R"({"format": "dimscope.project", "version": 1, "export": {"separate_programs": 1}})")
            << "bad.dimscope: export.separate_programs: expected true or false";
        QTest::newRow("verify_with")
            << QByteArray(R"({"format": "dimscope.project", "version": 1, "export": {"verify_with": 3}})")
            << "bad.dimscope: export.verify_with: expected a path string or null";
    }
    void badDocuments()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, error);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.dimscope"));
        write(path, json);
        QString got;
        QVERIFY(!ProjectFile::read(path, &got));
        QVERIFY2(got.startsWith(error), qPrintable(got));
    }

    // A FIFO blocked QFile::open until a writer came; a device or a directory is no
    // project either. Each is refused with what it is.
    void refusesSpecialFiles()
    {
        QTemporaryDir dir;
        const QString fifo = dir.filePath(QStringLiteral("p.dimscope"));
        QVERIFY(makeFifo(fifo));
        QString error;
        bool opened = true;
        QVERIFY2(!blocksOnFifo(fifo, [&] { opened = ProjectFile::read(fifo, &error).has_value(); }),
                 "ProjectFile::read blocked on a FIFO");
        QVERIFY(!opened);
        QCOMPARE(error, QStringLiteral("p.dimscope: is a FIFO (named pipe), not a regular file"));
        QVERIFY(!ProjectFile::read(QStringLiteral("/dev/zero"), &error));
        QCOMPARE(error, QStringLiteral("zero: is a character device, not a regular file"));
        QVERIFY(!ProjectFile::read(dir.path(), &error));
        QVERIFY2(error.endsWith(QStringLiteral(": is a directory, not a regular file")), qPrintable(error));
    }

    void failedSaveKeepsThePreviousFile()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("p.dimscope"));
        ProjectFile project;
        project.modelRef = QStringLiteral("first:ref");
        QVERIFY(ProjectFile::write(path, project, nullptr));
        // A save into a folder that does not exist fails and touches nothing.
        QString error;
        QVERIFY(!ProjectFile::write(dir.filePath(QStringLiteral("missing/p.dimscope")), project, &error));
        QVERIFY(error.contains(QStringLiteral("cannot save")));
        QCOMPARE(ProjectFile::read(path, nullptr)->modelRef, QStringLiteral("first:ref"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("p.dimscope")});
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestProjectFile)
#include "tst_projectfile.moc"
