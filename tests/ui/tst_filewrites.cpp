// SPDX-License-Identifier: GPL-3.0-or-later
// The GUI's writers on a full disk and in a read-only folder (issue 26, item 4): Save
// Project, Save Constraints as JSON, a table's Export as CSV and the plot's Save… each
// say that the save failed, naming the file and the cause, never "Saved …"; the file
// that was there is byte for byte what it was and nothing is left beside it. The full
// disk and the read-only folder are a 64 KiB tmpfs of the test's own, in a private
// mount namespace (tests/common/smalldisk.h says how it is made).
#include "smalldisk.h"

#include "kvcapture.h"
#include "inputsview.h"
#include "mainwindow.h"
#include "messagebanner.h"
#include "models/inputsmodel.h"
#include "plotpanel.h"
#include "projectcontroller.h"
#include "document/projectdocument.h"
#include "text/tablecsv.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include "deterministictestmain.h"
#include "throwawaysettings.h"

using namespace dimscope;
using namespace dimscope::test;

namespace {

QByteArray readFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("(cannot read)");
}

} // namespace

class TestFileWrites : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_settings;

    static QByteArray originalBytes() { return QByteArray("the user's earlier file\n").repeated(40); }

    // The disk in the state the row names: "full" or "read-only", holding `name` with
    // the user's earlier bytes. Returns its path.
    static QString givenTheDisk(const QString &name)
    {
        QFETCH(QString, mode);
        const QString path = QDir(SmallDisk::folder()).filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(originalBytes()) != originalBytes().size() || !f.flush())
            qFatal("cannot write %s", qPrintable(path));
        f.close();
        QString error;
        if (mode == QLatin1String("full") ? !SmallDisk::fill() : !SmallDisk::makeReadOnly(&error))
            qFatal("the small disk: %s", qPrintable(error));
        return path;
    }

    static QString expectedCause()
    {
        QFETCH(QString, mode);
        return mode == QLatin1String("full") ? QStringLiteral("No space left on device") : QStringLiteral("Read-only file system");
    }

    static void thenTheFileIsIntact(const QString &path)
    {
        QCOMPARE(readFile(path), originalBytes());
        QCOMPARE(SmallDisk::leftovers({QFileInfo(path).fileName()}), QStringList());
    }

    // A window showing a capture, its plot on a leaf.
    static void showCapture(MainWindow &window)
    {
        window.show();
        QSignalSpy shown(&window, &MainWindow::captureShown);
        window.showCapture(test::kvCapture(3, 1), QStringLiteral("in-memory"));
        QVERIFY(shown.wait(5000));
        window.plotPanel()->showNode(window.inputsView()->model()->nodeOf(
            window.inputsView()->model()->indexForPath(QStringLiteral("input_ids"))));
    }

    static void modes()
    {
        QTest::addColumn<QString>("mode");
        QTest::newRow("full disk") << QStringLiteral("full");
        QTest::newRow("read-only folder") << QStringLiteral("read-only");
    }

    static void thenTheBannerSaysItFailed(MainWindow &window, const QString &path)
    {
        auto *banner = window.findChild<MessageBanner *>(QStringLiteral("messageBanner"));
        QVERIFY(banner && banner->isVisible());
        const QString text = banner->findChild<QLabel *>(QStringLiteral("messageBannerText"))->text();
        QCOMPARE(banner->kind(), MessageBanner::Kind::Error);
        QVERIFY2(!text.contains(QLatin1String("Saved")) && !text.contains(QLatin1String("saved to")), qPrintable(text));
        QVERIFY2(text.contains(QFileInfo(path).fileName()), qPrintable(text));
        QVERIFY2(text.contains(expectedCause()), qPrintable(text));
    }

private slots:
    void initTestCase() { QVERIFY(test::useThrowawaySettings(m_settings, QStringLiteral("tst_filewrites"))); }

    void saveProjectFails_data() { modes(); }
    void saveProjectFails()
    {
        DIMSCOPE_ON_SMALL_DISK();
        const QString path = givenTheDisk(QStringLiteral("base.dimscope"));
        MainWindow window;
        showCapture(window);
        window.document()->setModelRef(QStringLiteral("dimscope.demo:make_model"));
        // When Save Project is chosen and answered with the project on the small disk
        window.projectController()->setSavePathHook([&](const QString &) { return path; });
        window.findChild<QAction *>(QStringLiteral("actionSaveProject"))->trigger();
        // Then the banner says it failed, and the project still has unsaved changes
        thenTheBannerSaysItFailed(window, path);
        QVERIFY(window.document()->isModified());
        thenTheFileIsIntact(path);
    }

    void saveConstraintsFails_data() { modes(); }
    void saveConstraintsFails()
    {
        DIMSCOPE_ON_SMALL_DISK();
        const QString path = givenTheDisk(QStringLiteral("base.constraints.json"));
        MainWindow window;
        showCapture(window);
        QVERIFY(!window.projectController()->saveConstraintsJson(path));
        thenTheBannerSaysItFailed(window, path);
        thenTheFileIsIntact(path);
    }

    void savePlotFails_data()
    {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<QString>("name");
        for (const char *format : {"png", "pdf"}) {
            const QString name = QStringLiteral("plot.") + QLatin1String(format);
            QTest::addRow("%s, full disk", format) << QStringLiteral("full") << name;
            QTest::addRow("%s, read-only folder", format) << QStringLiteral("read-only") << name;
        }
    }
    void savePlotFails()
    {
        DIMSCOPE_ON_SMALL_DISK();
        QFETCH(QString, name);
        const QString path = givenTheDisk(name);
        MainWindow window;
        showCapture(window);
        QString error;
        QVERIFY(!window.plotPanel()->saveTo(path, &error));
        auto *status = window.plotPanel()->findChild<QLabel *>(QStringLiteral("plotSaveStatus"));
        QVERIFY(status && status->isVisible());
        QVERIFY2(!status->text().startsWith(QLatin1String("Saved")), qPrintable(status->text()));
        QVERIFY2(status->text().contains(QDir::toNativeSeparators(path)) && status->text().contains(expectedCause()),
                 qPrintable(status->text()));
        thenTheFileIsIntact(path);
    }

    void exportCsvFails_data() { modes(); }
    void exportCsvFails()
    {
        DIMSCOPE_ON_SMALL_DISK();
        const QString path = givenTheDisk(QStringLiteral("table.csv"));
        QStandardItemModel model(2, 2);
        model.setHorizontalHeaderLabels({QStringLiteral("leaf"), QStringLiteral("shape")});
        for (int r = 0; r < 2; ++r)
            for (int c = 0; c < 2; ++c)
                model.setItem(r, c, new QStandardItem(QStringLiteral("cell %1,%2").arg(r).arg(c)));
        QString error;
        QVERIFY(!TableCsv::save(model, TableCsv::allRows(model), path, &error));
        QVERIFY2(error.contains(path) && error.contains(expectedCause()), qPrintable(error));
        thenTheFileIsIntact(path);
    }
};

DIMSCOPE_TEST_MAIN(TestFileWrites)
#include "tst_filewrites.moc"
