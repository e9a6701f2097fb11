// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture/jsoncursor.h"

#include "deterministictestmain.h"

using namespace dimscope;

// JsonCursor's string escapes: what the header and manifest readers get from names
// written by json.dumps (which escapes every non-ASCII character as \uXXXX).
class TestJsonCursor : public QObject
{
    Q_OBJECT
private slots:
    void escapes_data();
    void escapes();
    void badEscapes_data();
    void badEscapes();
};

void TestJsonCursor::escapes_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QByteArray>("utf8");
    QTest::newRow("no escape") << QByteArray(R"("abc")") << QByteArray("abc");
    QTest::newRow("simple escapes") << QByteArray(R"("a\"b\\c\/d\ne\tf")") << QByteArray("a\"b\\c/d\ne\tf");
    QTest::newRow("\\u of two bytes") << QByteArray(R"("caf\u00e9")") << QByteArray("caf\xc3\xa9");
    QTest::newRow("\\u of three bytes") << QByteArray(R"("\u4e2d")") << QByteArray("\xe4\xb8\xad");
    QTest::newRow("a surrogate pair is one code point")
        << QByteArray(R"("x\ud83d\ude00y")") << QByteArray("x\xf0\x9f\x98\x80y");
}

void TestJsonCursor::escapes()
{
    QFETCH(QByteArray, json);
    QFETCH(QByteArray, utf8);
    JsonCursor c(json.constData(), json.constData() + json.size());
    std::string_view out;
    std::string storage;
    QVERIFY2(c.readString(out, storage), qPrintable(c.error()));
    QCOMPARE(QByteArray(out.data(), qsizetype(out.size())), utf8);

    // In place, over a writable copy of the input, the same bytes come out.
    QByteArray writable = json;
    JsonCursor inPlace(writable.data(), writable.data() + writable.size());
    QVERIFY2(inPlace.readStringInPlace(out), qPrintable(inPlace.error()));
    QCOMPARE(QByteArray(out.data(), qsizetype(out.size())), utf8);
}

void TestJsonCursor::badEscapes_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("error");
    QTest::newRow("too few hex digits") << QByteArray(R"("\u12")") << "at byte 3: invalid \\u escape";
    QTest::newRow("not hex") << QByteArray(R"("\u12g4")") << "at byte 3: invalid \\u escape";
    QTest::newRow("a high surrogate alone") << QByteArray(R"("\ud800x")") << "at byte 7: unpaired surrogate in a \\u escape";
    QTest::newRow("a high surrogate before a non-surrogate")
        << QByteArray(R"("\ud800\u0041")") << "at byte 7: unpaired surrogate in a \\u escape";
    QTest::newRow("a low surrogate alone") << QByteArray(R"("\udc00")") << "at byte 7: unpaired surrogate in a \\u escape";
    QTest::newRow("unknown escape") << QByteArray(R"("\x")") << "at byte 2: invalid escape \\'x'";
}

void TestJsonCursor::badEscapes()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, error);
    JsonCursor c(json.constData(), json.constData() + json.size());
    std::string_view out;
    std::string storage;
    QVERIFY(!c.readString(out, storage));
    QCOMPARE(c.error(), error);
}

DIMSCOPE_GUILESS_TEST_MAIN(TestJsonCursor)
#include "tst_jsoncursor.moc"
