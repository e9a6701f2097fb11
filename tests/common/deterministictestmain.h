// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The main() of every test suite: QTEST_MAIN / QTEST_GUILESS_MAIN plus what makes a run
// independent of the machine and of the previous run. Qt reads the hash seed and the
// C library its locale once, so those are fixed before the application object exists;
// QLocale's default, the settings location and the widget style after it.
//   DIMSCOPE_GUILESS_TEST_MAIN(TestClass)  QCoreApplication
//   DIMSCOPE_TEST_MAIN(TestClass)          QApplication, Fusion style (widget suites)
// A suite that points QSettings somewhere itself (initTestCase) overrides the
// temporary location set here.

#include <QCoreApplication>
#include <QDir>
#include <QHashSeed>
#include <QLocale>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>

#include <clocale>

namespace dimscope::test {

class DeterministicEnvironment
{
public:
    // Before the application object: QHash seeds and the C locale are read at start-up.
    static void prepareProcess()
    {
        qputenv("QT_HASH_SEED", "0");
        QHashSeed::setDeterministicGlobalSeed();
        qputenv("LC_ALL", "C");
        std::setlocale(LC_ALL, "C");
    }

    // After it: number formats in the C locale, settings in a folder removed at exit (a
    // run never reads the user's settings nor the previous run's).
    DeterministicEnvironment()
    {
        QLocale::setDefault(QLocale::c());
        QSettings::setDefaultFormat(QSettings::IniFormat);
        for (QSettings::Format format : {QSettings::NativeFormat, QSettings::IniFormat}) {
            QSettings::setPath(format, QSettings::UserScope, m_settings.path());
            QSettings::setPath(format, QSettings::SystemScope, m_settings.filePath(QStringLiteral("system")));
        }
    }

private:
    QTemporaryDir m_settings;
};

} // namespace dimscope::test

#define DIMSCOPE_TEST_MAIN_IMPL(TestObject, Application, setup)                                                          \
    int main(int argc, char *argv[])                                                                                   \
    {                                                                                                                  \
        dimscope::test::DeterministicEnvironment::prepareProcess();                                                    \
        Application app(argc, argv);                                                                                   \
        app.setAttribute(Qt::AA_Use96Dpi, true);                                                                       \
        setup                                                                                                          \
        dimscope::test::DeterministicEnvironment environment;                                                          \
        TestObject tc;                                                                                                 \
        QTEST_SET_MAIN_SOURCE_PATH                                                                                     \
        return QTest::qExec(&tc, argc, argv);                                                                          \
    }

#define DIMSCOPE_GUILESS_TEST_MAIN(TestObject) DIMSCOPE_TEST_MAIN_IMPL(TestObject, QCoreApplication, {})

#ifdef QT_WIDGETS_LIB
#include <QApplication>
#include <QStyleFactory>
// Fusion: the same metrics and palette whatever the desktop's default style is.
#define DIMSCOPE_TEST_MAIN(TestObject)                                                                                 \
    DIMSCOPE_TEST_MAIN_IMPL(TestObject, QApplication, QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));)
#endif
