// SPDX-License-Identifier: GPL-3.0-or-later
// ModelReference: a model reference decided as the worker decides it, on what it
// resolves to (issue 26 items 1 and 3). "dimscope./../evil_model.py:make" is no module
// of dimscope's package; a file is made absolute against the folder given, never the
// working directory; only `dimscope.<names>` modules are dimscope's own.
#include "project/modelreference.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include "deterministictestmain.h"

using namespace dimscope;

class TestModelReference : public QObject
{
    Q_OBJECT

private slots:
    void disguisedDimscopeReferencesAreRefused_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("place");
        QTest::newRow("parent folder") << QStringLiteral("dimscope./../evil_model.py:make") << QStringLiteral("'/' at character 10");
        QTest::newRow("absolute behind it") << QStringLiteral("dimscope./../../../../tmp/x/evil_model.py:make")
                                            << QStringLiteral("'/' at character 10");
        QTest::newRow("backslash") << QStringLiteral("dimscope.\\..\\evil.py:make") << QStringLiteral("'\\' at character 10");
        QTest::newRow("dot dot") << QStringLiteral("dimscope..evil:make") << QStringLiteral("'..' at character 9");
        QTest::newRow("a .py file") << QStringLiteral("dimscope.evil.py:make") << QStringLiteral("is a .py file path");
    }
    void disguisedDimscopeReferencesAreRefused()
    {
        QFETCH(QString, text);
        QFETCH(QString, place);
        QTemporaryDir dir;
        QString error;
        QVERIFY(!ModelReference::resolve(text, QDir(dir.path()), &error));
        QVERIFY2(error.contains(QLatin1String("names dimscope's own package")) && error.contains(place), qPrintable(error));
        QVERIFY2(error.contains(text), qPrintable(error));
        QCOMPARE(ModelReference::disguise(text), error);
        QCOMPARE(ModelReference::absoluteIn(text, QDir(dir.path())), text); // never turned into a path
    }

    void dimscopeModulesAreItsOwn()
    {
        QTemporaryDir dir;
        // A folder named like the reference beside the project does not change it.
        QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("dimscope.demo:make_model")));
        const auto demo = ModelReference::resolve(QStringLiteral("dimscope.demo:make_model"), QDir(dir.path()), nullptr);
        QVERIFY(demo);
        QCOMPARE(demo->kind(), ModelReference::Kind::Module);
        QVERIFY(demo->isDimscopeOwn());
        QCOMPARE(demo->text(), QStringLiteral("dimscope.demo:make_model"));
        const auto other = ModelReference::resolve(QStringLiteral("dimscopex.demo:make"), QDir(dir.path()), nullptr);
        QVERIFY(other && !other->isDimscopeOwn());
        // A file called dimscope.py is a file, not dimscope's package.
        const auto file = ModelReference::resolve(QStringLiteral("sub/dimscope.py:make"), QDir(dir.path()), nullptr);
        QVERIFY(file && file->kind() == ModelReference::Kind::File && !file->isDimscopeOwn());
    }

    void filesResolveAgainstTheBaseNotTheWorkingDirectory()
    {
        QTemporaryDir base, cwd;
        const QString before = QDir::currentPath();
        QVERIFY(QDir::setCurrent(cwd.path()));
        const auto ref = ModelReference::resolve(QStringLiteral("models/../m.py:Factory.build"), QDir(base.path()), nullptr);
        QDir::setCurrent(before);
        QVERIFY(ref);
        QCOMPARE(ref->kind(), ModelReference::Kind::File);
        QCOMPARE(ref->path(), QDir(base.path()).filePath(QStringLiteral("m.py")));
        QCOMPARE(ref->callable(), QStringLiteral("Factory.build"));
        QCOMPARE(ref->text(), QDir(base.path()).filePath(QStringLiteral("m.py:Factory.build")));
        QVERIFY(ref->canonicalPath().isEmpty()); // not there
    }

    // The file asked about is the file that runs: canonicalPath() is path() with its
    // links resolved, and path() is what text() gives the worker (which takes its
    // realpath). A link in the folder is followed; '..' is cut from the text first.
    void canonicalPathIsTheFileTheWorkerOpens()
    {
        QTemporaryDir dir;
        const QDir d(dir.path());
        QVERIFY(d.mkpath(QStringLiteral("real")));
        QFile model(d.filePath(QStringLiteral("real/m.py")));
        QVERIFY(model.open(QIODevice::WriteOnly));
        model.close();
        QVERIFY(QFile::link(d.filePath(QStringLiteral("real")), d.filePath(QStringLiteral("link"))));
        const auto ref = ModelReference::resolve(QStringLiteral("sub/../link/m.py:make"), d, nullptr);
        QVERIFY(ref);
        QCOMPARE(ref->path(), d.filePath(QStringLiteral("link/m.py")));
        QCOMPARE(ref->text(), d.filePath(QStringLiteral("link/m.py:make")));
        QCOMPARE(ref->canonicalPath(), QFileInfo(d.filePath(QStringLiteral("real/m.py"))).canonicalFilePath());
    }

    void malformedReferences_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("needle");
        QTest::newRow("no callable, no folder") << QStringLiteral("just-a-word") << QStringLiteral("is no folder");
        QTest::newRow("empty callable") << QStringLiteral("pkg.mod:") << QStringLiteral("is not a Python name");
        QTest::newRow("callable with a path") << QStringLiteral("pkg.mod:a/b") << QStringLiteral("is not a Python name");
        QTest::newRow("module with a path") << QStringLiteral("pkg/mod:make") << QStringLiteral("neither a module name");
        QTest::newRow("relative module") << QStringLiteral(".mod:make") << QStringLiteral("neither a module name");
        QTest::newRow("empty") << QString() << QStringLiteral("empty");
    }
    void malformedReferences()
    {
        QFETCH(QString, text);
        QFETCH(QString, needle);
        QTemporaryDir dir;
        QString error;
        QVERIFY(!ModelReference::resolve(text, QDir(dir.path()), &error));
        QVERIFY2(error.contains(needle), qPrintable(error));
    }

    void relativeInIsTheInverseOfAbsoluteIn_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("written");
        QTest::newRow("beside") << QStringLiteral("m.py:make") << QStringLiteral("m.py:make");
        QTest::newRow("dot slash") << QStringLiteral("./m.py:make") << QStringLiteral("m.py:make");
        QTest::newRow("parent") << QStringLiteral("../x/m.py:make") << QStringLiteral("../x/m.py:make");
        QTest::newRow("leading colon") << QStringLiteral(":m.py:make") << QStringLiteral(":m.py:make");
        QTest::newRow("module") << QStringLiteral("pkg.mod:make") << QStringLiteral("pkg.mod:make");
        QTest::newRow("folder") << QStringLiteral("hf/model") << QStringLiteral("hf/model");
        QTest::newRow("looks like dimscope") << QStringLiteral("./dimscope.x/m.py:make") << QStringLiteral("./dimscope.x/m.py:make");
    }
    void relativeInIsTheInverseOfAbsoluteIn()
    {
        QFETCH(QString, text);
        QFETCH(QString, written);
        QTemporaryDir dir;
        const QDir base(QDir(dir.path()).filePath(QStringLiteral("project")));
        const QString absolute = ModelReference::absoluteIn(text, base);
        QCOMPARE(ModelReference::relativeIn(absolute, base), written);
        QCOMPARE(ModelReference::absoluteIn(written, base), absolute);
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestModelReference)
#include "tst_modelreference.moc"
