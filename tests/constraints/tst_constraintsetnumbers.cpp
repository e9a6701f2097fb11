// SPDX-License-Identifier: GPL-3.0-or-later
// The integers of a constraint set are read exactly and written back as they were
// (docs/spec-format.md): QJsonValue holds numbers as doubles unless the text was an
// integer, so 9223372036854775807 (torch's bound) was refused and 9007199254740993
// written back as ...992.
#include "constraints/constraintset.h"
#include "constraints/constraintsetjson.h"

#include "deterministictestmain.h"

using namespace dimscope;

class TestConstraintSetNumbers : public QObject
{
    Q_OBJECT
private slots:
    void exactIntegers_data();
    void exactIntegers();
    void refused_data();
    void refused();
};

namespace {
QByteArray rootDoc(const QByteArray &min, const QByteArray &max)
{
    return "{\n  \"format\": \"dimscope.constraints\",\n  \"version\": 1,\n  \"dims\": [\n"
           "    {\"name\": \"batch\", \"min\": " + min + ", \"max\": " + max + "}\n  ],\n  \"leaves\": {}\n}\n";
}

QByteArray derivedDoc(const QByteArray &a, const QByteArray &b)
{
    return "{\n  \"format\": \"dimscope.constraints\",\n  \"version\": 1,\n  \"dims\": [\n"
           "    {\"name\": \"r\", \"min\": 0, \"max\": 9223372036854775807},\n"
           "    {\"name\": \"d\", \"root\": \"r\", \"a\": " + a + ", \"b\": " + b + "}\n  ],\n  \"leaves\": {}\n}\n";
}
} // namespace

void TestConstraintSetNumbers::exactIntegers_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::newRow("int64 max, torch's unbounded") << rootDoc("0", "9223372036854775807");
    QTest::newRow("2^53 + 1") << rootDoc("9007199254740993", "9007199254740995");
    QTest::newRow("null bounds") << rootDoc("null", "null");
    QTest::newRow("derived, large a and b") << derivedDoc("4611686018427387904", "-9223372036854775808");
}

// Read, then written: the same bytes (the written layout is canonical).
void TestConstraintSetNumbers::exactIntegers()
{
    QFETCH(QByteArray, json);
    QString error;
    const std::optional<ConstraintSet> set = ConstraintSetJson::read(json, &error);
    QVERIFY2(set, qPrintable(error));
    QCOMPARE(QString::fromUtf8(ConstraintSetJson::write(*set)), QString::fromUtf8(json));
}

void TestConstraintSetNumbers::refused_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("error");
    const QString fraction = QStringLiteral("dims[0].max: expected an integer or null, found a number with a fraction or an exponent");
    QTest::newRow("1.0") << rootDoc("0", "1.0") << fraction;
    QTest::newRow("1e2") << rootDoc("0", "1e2") << fraction;
    QTest::newRow("2^53 + 1 with a fraction") << rootDoc("0", "9007199254740993.0") << fraction;
    QTest::newRow("2^63") << rootDoc("0", "9223372036854775808")
                          << QStringLiteral("dims[0].max: the integer is out of range (integers here lie in -2^63 .. 2^63-1)");
    QTest::newRow("-2^63 - 1") << rootDoc("-9223372036854775809", "null")
                               << QStringLiteral("dims[0].min: the integer is out of range (integers here lie in -2^63 .. 2^63-1)");
    QTest::newRow("1e400") << rootDoc("0", "1e400") << QStringLiteral("not valid JSON at line 5, column 45: illegal number");
    QTest::newRow("a 2.0") << derivedDoc("2.0", "0")
                           << QStringLiteral("dims[1].a: expected a positive integer, found a number with a fraction or an exponent");
    QTest::newRow("b 2^64") << derivedDoc("1", "18446744073709551616")
                            << QStringLiteral("dims[1].b: the integer is out of range (integers here lie in -2^63 .. 2^63-1)");
}

void TestConstraintSetNumbers::refused()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, error);
    QString got;
    QVERIFY(!ConstraintSetJson::read(json, &got));
    QCOMPARE(got, error);
}

DIMSCOPE_GUILESS_TEST_MAIN(TestConstraintSetNumbers)
#include "tst_constraintsetnumbers.moc"
