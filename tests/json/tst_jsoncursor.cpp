// SPDX-License-Identifier: GPL-3.0-or-later
#include "json/jsoncursor.h"

#include "deterministictestmain.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QVarLengthArray>

#include <limits>

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
    void specialBytesAtEveryOffset_data();
    void specialBytesAtEveryOffset();
    void integers_data();
    void integers();
    void exactValues_data();
    void exactValues();
    void lenientValues();
    void memberAndElementLoops();
    void nonNegativeInts_data();
    void nonNegativeInts();
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

// Strings are scanned eight bytes at a time: whatever ends a plain run (the closing
// quote, an escape, a control character, a multi-byte UTF-8 sequence) must be found
// at each offset within and across those eight bytes, after plain bytes next to the
// special ones in value (' ', '!', '#', '[', ']', DEL), whose borrows could hide it.
void TestJsonCursor::specialBytesAtEveryOffset_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QByteArray>("utf8");   // the decoded string, when it is valid
    QTest::addColumn<QString>("error");     // else the error
    const QByteArray plain(" !#[]~\x7f#a! ]Z[ #]!~"); // 19 plain bytes
    QCOMPARE_GE(plain.size(), 18);
    for (int n = 0; n <= 17; ++n) {
        const QByteArray p = plain.left(n);
        const QByteArray at = QByteArray::number(n);
        QTest::newRow(QByteArray("end after " + at).constData()) << QByteArray('"' + p + "\"], 1") << p << QString();
        QTest::newRow(QByteArray("escape after " + at).constData())
            << QByteArray('"' + p + "\\n" + p + '"') << QByteArray(p + '\n' + p) << QString();
        QTest::newRow(QByteArray("two-byte UTF-8 after " + at).constData())
            << QByteArray('"' + p + "\xc3\xa9" + p + '"') << QByteArray(p + "\xc3\xa9" + p) << QString();
        QTest::newRow(QByteArray("control character after " + at).constData())
            << QByteArray('"' + p + "\x01\"") << QByteArray()
            << QStringLiteral("at byte %1: unescaped control character in a string").arg(n + 1);
        QTest::newRow(QByteArray("bad UTF-8 after " + at).constData())
            << QByteArray('"' + p + "\xff\"") << QByteArray() << QStringLiteral("at byte %1: invalid UTF-8 (byte 0xff)").arg(n + 1);
        QTest::newRow(QByteArray("unterminated after " + at).constData())
            << QByteArray('"' + p) << QByteArray() << QStringLiteral("at byte %1: unterminated string").arg(n + 1);
    }
}

void TestJsonCursor::specialBytesAtEveryOffset()
{
    QFETCH(QByteArray, json);
    QFETCH(QByteArray, utf8);
    QFETCH(QString, error);
    JsonCursor c(json.constData(), json.constData() + json.size());
    std::string_view out;
    std::string storage;
    const bool read = c.readString(out, storage);
    QCOMPARE(read, error.isEmpty());
    if (read)
        QCOMPARE(QByteArray(out.data(), qsizetype(out.size())), utf8);
    else
        QCOMPARE(c.error(), error);

    QByteArray writable = json;
    JsonCursor inPlace(writable.data(), writable.data() + writable.size());
    QCOMPARE(inPlace.readStringInPlace(out), error.isEmpty());
    if (read)
        QCOMPARE(QByteArray(out.data(), qsizetype(out.size())), utf8);
    else
        QCOMPARE(inPlace.error(), error);
}

void TestJsonCursor::integers_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<qint64>("value");
    QTest::addColumn<QString>("error");
    QTest::addColumn<int>("end"); // where the cursor stands after a good read
    QTest::newRow("zero") << QByteArray("0]") << qint64(0) << QString() << 1;
    QTest::newRow("minus zero") << QByteArray("-0]") << qint64(0) << QString() << 2;
    QTest::newRow("after whitespace") << QByteArray(" \n 42,") << qint64(42) << QString() << 5;
    QTest::newRow("18 digits") << QByteArray("123456789012345678") << qint64(123456789012345678) << QString() << 18;
    QTest::newRow("negative 18 digits") << QByteArray("-123456789012345678") << qint64(-123456789012345678) << QString() << 19;
    QTest::newRow("19 digits") << QByteArray("1234567890123456789") << qint64(1234567890123456789) << QString() << 19;
    QTest::newRow("the largest") << QByteArray("9223372036854775807") << std::numeric_limits<qint64>::max() << QString() << 19;
    QTest::newRow("the smallest") << QByteArray("-9223372036854775808") << std::numeric_limits<qint64>::min() << QString() << 20;
    QTest::newRow("one too large") << QByteArray("9223372036854775808") << qint64(0)
                                   << QStringLiteral("at byte 0: integer 9223372036854775808 is out of range (a JSON integer here lies in -2^63 .. 2^63-1)") << 0;
    QTest::newRow("a leading zero ends the number") << QByteArray("01") << qint64(0) << QString() << 1;
    QTest::newRow("a fraction") << QByteArray("1.5") << qint64(0)
                                << QStringLiteral("at byte 0: expected an integer, found a non-integer number") << 0;
    QTest::newRow("an exponent") << QByteArray("12e3") << qint64(0)
                                 << QStringLiteral("at byte 0: expected an integer, found a non-integer number") << 0;
    QTest::newRow("a fraction after 18 digits") << QByteArray("123456789012345678.5") << qint64(0)
                                                << QStringLiteral("at byte 0: expected an integer, found a non-integer number") << 0;
    QTest::newRow("a minus alone") << QByteArray("-]") << qint64(0) << QStringLiteral("at byte 0: invalid number") << 0;
}

void TestJsonCursor::integers()
{
    QFETCH(QByteArray, json);
    QFETCH(qint64, value);
    QFETCH(QString, error);
    QFETCH(int, end);
    JsonCursor c(json.constData(), json.constData() + json.size());
    qint64 out = -1;
    const bool read = c.readInt64(out);
    QCOMPARE(read, error.isEmpty());
    if (read) {
        QCOMPARE(out, value);
        QCOMPARE(c.position(), qint64(end));
    } else {
        QCOMPARE(c.error(), error);
    }
}

// An exact cursor (the capture's header and manifest, docs/capture-format.md "Numbers
// and JSON") refuses what it could not hold; python/dimscope/capture/strictjson.py
// refuses the same texts (tests/python/test_reader_agreement.py compares the two).
void TestJsonCursor::exactValues_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("read");  // the value read, compact JSON, when it is read
    QTest::addColumn<QString>("error"); // else the error
    QTest::newRow("int64 max") << QByteArray("[9223372036854775807]") << QStringLiteral("[9223372036854775807]") << QString();
    QTest::newRow("2^53 + 1") << QByteArray("[9007199254740993]") << QStringLiteral("[9007199254740993]") << QString();
    QTest::newRow("a subnormal") << QByteArray("[4e-320]") << QStringLiteral("[4e-320]") << QString();
    QTest::newRow("zero with a large exponent") << QByteArray("[0e400]") << QStringLiteral("[0]") << QString();
    QTest::newRow("2^63") << QByteArray("[1, 9223372036854775808]") << QString()
                          << QStringLiteral("at byte 4: integer 9223372036854775808 is out of range (a JSON integer here lies in -2^63 .. 2^63-1)");
    QTest::newRow("a long integer, elided") << QByteArray("[1" + QByteArray(400, '0') + "]") << QString()
                                            << QStringLiteral("at byte 1: integer 100000000000...000000000000 is out of range (a JSON integer here lies in -2^63 .. 2^63-1)");
    QTest::newRow("1e400") << QByteArray("{\"a\": 1e400}") << QString()
                           << QStringLiteral("at byte 6: number 1e400 is out of range (beyond what a double holds)");
    QTest::newRow("-1e400") << QByteArray("[-1e400]") << QString()
                            << QStringLiteral("at byte 1: number -1e400 is out of range (beyond what a double holds)");
    QTest::newRow("1e-400") << QByteArray("[1e-400]") << QString()
                            << QStringLiteral("at byte 1: number 1e-400 is out of range (beyond what a double holds)");
    QTest::newRow("a member twice") << QByteArray("{\"a\": 1, \"b\": {}, \"a\": 2}") << QString()
                                    << QStringLiteral("at byte 18: the member 'a' appears twice in one object");
    QTest::newRow("a member twice, many members") << [] {
        QByteArray json = "{";
        for (int i = 0; i < 40; ++i)
            json += "\"k" + QByteArray::number(i) + "\": 0, ";
        json += "\"k7\": 1}"; // appended, not returned as `json + …`: that builder would outlive json
        return json;
    }() << QString() << QStringLiteral("at byte 391: the member 'k7' appears twice in one object");
    QTest::newRow("the same name in two objects") << QByteArray("[{\"a\": 1}, {\"a\": 2}]") << QStringLiteral("[{\"a\":1},{\"a\":2}]") << QString();
    QTest::newRow("256 levels") << QByteArray(256, '[') + QByteArray(256, ']') << QString::fromLatin1(QByteArray(256, '[') + QByteArray(256, ']')) << QString();
    QTest::newRow("257 levels") << QByteArray(257, '[') + QByteArray(257, ']') << QString()
                                << QStringLiteral("at byte 257: JSON nested more than 256 levels deep");
}

void TestJsonCursor::exactValues()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, read);
    QFETCH(QString, error);
    JsonCursor c(json.constData(), json.constData() + json.size());
    c.setExact(true);
    QJsonValue v;
    const bool ok = c.readValue(v);
    QCOMPARE(ok, error.isEmpty());
    if (!ok) {
        QCOMPARE(c.error(), error);
        QCOMPARE(c.refused(), !error.contains(QLatin1String("nested"))); // JSON refused, not broken
        return;
    }
    const QJsonDocument doc = v.isArray() ? QJsonDocument(v.toArray()) : QJsonDocument(v.toObject());
    QCOMPARE(QString::fromUtf8(doc.toJson(QJsonDocument::Compact)), read);
}

// Without exact (torch's .pt2 JSON), a duplicate's last value counts and nesting is
// still bounded.
void TestJsonCursor::lenientValues()
{
    const QByteArray twice = "{\"a\": 1, \"a\": 2}";
    JsonCursor c(twice.constData(), twice.constData() + twice.size());
    QJsonValue v;
    QVERIFY(c.readValue(v));
    QCOMPARE(v.toObject().value(QLatin1String("a")).toInteger(), 2);
    const QByteArray deep = QByteArray(300, '[') + QByteArray(300, ']');
    JsonCursor d(deep.constData(), deep.constData() + deep.size());
    QVERIFY(!d.skipValue());
    QCOMPARE(d.error(), QStringLiteral("at byte 257: JSON nested more than 256 levels deep"));
}

// The loops the three readers share: every member and element in order, a stop by the
// callback told from broken JSON by ok().
void TestJsonCursor::memberAndElementLoops()
{
    const QByteArray json = "{\"a\": [1, 2], \"b\\u0021\": true}";
    JsonCursor c(json.constData(), json.constData() + json.size());
    QStringList seen;
    QVERIFY(c.forEachMember([&](std::string_view key) {
        seen << QString::fromUtf8(key.data(), qsizetype(key.size()));
        if (key != "a")
            return c.skipValue();
        return c.forEachElement([&] {
            qint64 v = 0;
            if (!c.readInt64(v))
                return false;
            seen << QString::number(v);
            return true;
        });
    }));
    QVERIFY(c.atEnd());
    QCOMPARE(seen, QStringList({QStringLiteral("a"), QStringLiteral("1"), QStringLiteral("2"), QStringLiteral("b!")}));

    JsonCursor stopped(json.constData(), json.constData() + json.size());
    QVERIFY(!stopped.forEachMember([](std::string_view) { return false; }));
    QVERIFY(stopped.ok()); // the callback stopped, the JSON is fine

    const QByteArray broken = "[1, 2,]";
    JsonCursor b(broken.constData(), broken.constData() + broken.size());
    int elements = 0;
    QVERIFY(!b.forEachElement([&] { ++elements; return b.skipValue(); }));
    QCOMPARE(elements, 2);
    QVERIFY(!b.ok());
}

// A shape or a byte range: a list of at most maxCount non-negative integers.
void TestJsonCursor::nonNegativeInts_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<int>("maxCount");
    QTest::addColumn<bool>("read");
    QTest::addColumn<QList<qint64>>("ints");
    QTest::addColumn<bool>("jsonOk");
    QTest::newRow("a shape") << QByteArray("[2, 0, 7]") << 8 << true << QList<qint64>{2, 0, 7} << true;
    QTest::newRow("empty") << QByteArray("[]") << 8 << true << QList<qint64>{} << true;
    QTest::newRow("not a list") << QByteArray("{}") << 8 << false << QList<qint64>{} << true;
    QTest::newRow("negative") << QByteArray("[1, -1]") << 8 << false << QList<qint64>{1} << true;
    QTest::newRow("a string") << QByteArray("[\"1\"]") << 8 << false << QList<qint64>{} << true;
    QTest::newRow("one too many") << QByteArray("[1, 2, 3]") << 2 << false << QList<qint64>{1, 2} << true;
    QTest::newRow("broken") << QByteArray("[1 2]") << 8 << false << QList<qint64>{1} << false;
}

void TestJsonCursor::nonNegativeInts()
{
    QFETCH(QByteArray, json);
    QFETCH(int, maxCount);
    QFETCH(bool, read);
    QFETCH(QList<qint64>, ints);
    QFETCH(bool, jsonOk);
    JsonCursor c(json.constData(), json.constData() + json.size());
    QVarLengthArray<qint64, 8> out;
    QCOMPARE(c.readNonNegativeInts(out, maxCount), read);
    QCOMPARE(QList<qint64>(out.cbegin(), out.cend()), ints);
    QCOMPARE(c.ok(), jsonOk);
}

DIMSCOPE_GUILESS_TEST_MAIN(TestJsonCursor)
#include "tst_jsoncursor.moc"
