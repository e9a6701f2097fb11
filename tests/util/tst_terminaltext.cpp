// SPDX-License-Identifier: GPL-3.0-or-later
// TerminalText: what a terminal would act on is written as a visible escape, long
// names are elided, and ordinary text is left as it is.
#include "util/terminaltext.h"

#include "deterministictestmain.h"

#include <QElapsedTimer>

using namespace dimscope;

namespace {

// One code point (QString::fromUcs4 would drop a U+FEFF as a byte order mark).
QString fromCodePoint(char32_t c) { return c <= 0xffff ? QString(QChar(char16_t(c))) : QString::fromUcs4(&c, 1); }

// True when no character of `text` is one a terminal acts on or that hides or
// reorders text: what every escaped string must satisfy.
bool isInert(const QString &text)
{
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        if (c.isHighSurrogate() && i + 1 < text.size() && text.at(i + 1).isLowSurrogate()) {
            if (TerminalText::isEscaped(QChar::surrogateToUcs4(c, text.at(i + 1))))
                return false;
            ++i;
        } else if (TerminalText::isEscaped(c.unicode())) {
            return false;
        }
    }
    return true;
}

} // namespace

class TestTerminalText : public QObject
{
    Q_OBJECT
private slots:
    void escapes_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("shown");
        QTest::newRow("plain") << QStringLiteral("input_ids") << QStringLiteral("input_ids");
        QTest::newRow("non-ASCII text stays") << QStringLiteral("größe → 幅 🙂") << QStringLiteral("größe → 幅 🙂");
        QTest::newRow("backslash stays") << QStringLiteral("a\\b") << QStringLiteral("a\\b");
        QTest::newRow("ESC, OSC 0 retitle") << QStringLiteral("\x1b]0;pwned\x07x") << QStringLiteral("\\x1b]0;pwned\\x07x");
        QTest::newRow("OSC 52 clipboard") << QStringLiteral("\x1b]52;c;Y3VybA==\x1b\\")
                                          << QStringLiteral("\\x1b]52;c;Y3VybA==\\x1b\\");
        QTest::newRow("clear screen") << QStringLiteral("\x1b[2J\x1b[H") << QStringLiteral("\\x1b[2J\\x1b[H");
        QTest::newRow("LF, CR, tab") << QStringLiteral("a\nb\rc\td") << QStringLiteral("a\\nb\\rc\\td");
        QTest::newRow("NUL, BEL, BS") << QString(QStringLiteral("a%1b\x07\x08")).arg(QChar(0)) << QStringLiteral("a\\x00b\\x07\\x08");
        QTest::newRow("DEL") << QStringLiteral("a\x7f") << QStringLiteral("a\\x7f");
        QTest::newRow("C1 CSI") << fromCodePoint(0x9b) + QStringLiteral("2J") << QStringLiteral("\\x9b2J");
        QTest::newRow("C1 first and last") << fromCodePoint(0x80) + fromCodePoint(0x9f) << QStringLiteral("\\x80\\x9f");
        QTest::newRow("NBSP stays") << fromCodePoint(0xa0) << fromCodePoint(0xa0);
        QTest::newRow("RLO") << QStringLiteral("x") + fromCodePoint(0x202e) + QStringLiteral("txt.exe")
                             << QStringLiteral("x\\u202etxt.exe");
        QTest::newRow("bidi embeddings") << fromCodePoint(0x202a) + fromCodePoint(0x202b) + fromCodePoint(0x202c) + fromCodePoint(0x202d)
                                         << QStringLiteral("\\u202a\\u202b\\u202c\\u202d");
        QTest::newRow("bidi isolates") << fromCodePoint(0x2066) + fromCodePoint(0x2067) + fromCodePoint(0x2068) + fromCodePoint(0x2069)
                                       << QStringLiteral("\\u2066\\u2067\\u2068\\u2069");
        QTest::newRow("Arabic letter mark") << fromCodePoint(0x061c) << QStringLiteral("\\u061c");
        QTest::newRow("zero-width") << fromCodePoint(0x200b) + fromCodePoint(0x200c) + fromCodePoint(0x200d) + fromCodePoint(0x200e)
                                           + fromCodePoint(0x200f) + fromCodePoint(0x2060) + fromCodePoint(0xfeff)
                                    << QStringLiteral("\\u200b\\u200c\\u200d\\u200e\\u200f\\u2060\\ufeff");
        QTest::newRow("Mongolian vowel separator") << fromCodePoint(0x180e) << QStringLiteral("\\u180e");
        QTest::newRow("line and paragraph separators") << fromCodePoint(0x2028) + fromCodePoint(0x2029)
                                                       << QStringLiteral("\\u2028\\u2029");
        QTest::newRow("tag characters") << QStringLiteral("a") + fromCodePoint(0xe0041) << QStringLiteral("a\\U000e0041");
        QTest::newRow("unpaired high surrogate") << QString(QChar(0xd800)) + QStringLiteral("x") << QStringLiteral("\\ud800x");
        QTest::newRow("unpaired low surrogate at the end") << QStringLiteral("x") + QChar(0xdc00) << QStringLiteral("x\\udc00");
        QTest::newRow("reversed pair") << QString(QChar(0xdc00)) + QChar(0xd800) << QStringLiteral("\\udc00\\ud800");
    }
    void escapes()
    {
        QFETCH(QString, text);
        QFETCH(QString, shown);
        const QString escaped = TerminalText::escaped(text);
        QCOMPARE(escaped, shown);
        QVERIFY(isInert(escaped));
        QCOMPARE(TerminalText::field(text), shown); // short: field() only escapes
        QCOMPARE(TerminalText::quoted(text), QLatin1Char('\'') + shown + QLatin1Char('\''));
    }

    void escapedLinesKeepsLineFeedsAndTabsOnly()
    {
        const QString text = QStringLiteral("row 1\tx\nrow 2\r\x1b[2K") + fromCodePoint(0x202e);
        QCOMPARE(TerminalText::escapedLines(text), QStringLiteral("row 1\tx\nrow 2\\r\\x1b[2K\\u202e"));
    }

    void everyCodePointIsInertOnceEscaped()
    {
        // The whole of Unicode, in chunks: nothing escaped() lets through is a
        // character it should have escaped, and everything it escapes is visible ASCII.
        QString all;
        for (char32_t c = 0; c <= 0x10ffff; ++c) {
            if (c >= 0xd800 && c <= 0xdfff)
                all += QChar(char16_t(c)); // as unpaired surrogates
            else
                all += fromCodePoint(c);
            if (all.size() >= 4096 || c == 0x10ffff) {
                const QString escaped = TerminalText::escaped(all);
                QVERIFY2(isInert(escaped), qPrintable(QString::number(c, 16)));
                all.clear();
            }
        }
    }

    void longNamesAreElided()
    {
        const QString name = QStringLiteral("h").repeated(150) + QStringLiteral("\x1b[2J").repeated(1000)
                             + QStringLiteral("t").repeated(150);
        const QString shown = TerminalText::field(name);
        QCOMPARE(shown, QStringLiteral("h").repeated(100) + QStringLiteral("…(%1 characters)…").arg(name.size())
                            + QStringLiteral("t").repeated(100));
        // A name just long enough to be worth eliding, and one that is not.
        QCOMPARE(TerminalText::field(QStringLiteral("x").repeated(240)), QStringLiteral("x").repeated(240));
        QVERIFY(TerminalText::field(QStringLiteral("x").repeated(241)).contains(QStringLiteral("…(241 characters)…")));
    }

    void elisionCountsCharactersAndKeepsPairsWhole()
    {
        // 300 emoji: 600 UTF-16 units, 300 characters; no pair is cut in two.
        const QString emoji = fromCodePoint(0x1f642);
        const QString name = emoji.repeated(300);
        const QString shown = TerminalText::field(name);
        QCOMPARE(shown, emoji.repeated(100) + QStringLiteral("…(300 characters)…") + emoji.repeated(100));
    }

    void elidedEndsAreEscaped()
    {
        const QString name = QStringLiteral("\n").repeated(300);
        QCOMPARE(TerminalText::field(name),
                 QStringLiteral("\\n").repeated(100) + QStringLiteral("…(300 characters)…") + QStringLiteral("\\n").repeated(100));
    }

    void costIsLinear()
    {
        // 2 M characters, every one escaped: one pass, well under a second (a replace
        // per character, as the capture reader's messages did, is quadratic: hours).
        // The bound leaves room for AddressSanitizer builds on a busy machine.
        const QString worst = QStringLiteral("\x1b").repeated(2 << 20);
        QElapsedTimer t;
        t.start();
        const QString escaped = TerminalText::escaped(worst);
        QCOMPARE(escaped.size(), qsizetype(4) * (2 << 20));
        QVERIFY2(t.elapsed() < 20000, qPrintable(QString::number(t.elapsed())));
    }
};

DIMSCOPE_GUILESS_TEST_MAIN(TestTerminalText)
#include "tst_terminaltext.moc"
