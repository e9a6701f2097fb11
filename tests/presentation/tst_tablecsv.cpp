// SPDX-License-Identifier: GPL-3.0-or-later
// TableCsv on plain models: RFC 4180 quoting (commas, quotes, line breaks), unicode
// kept as UTF-8, the rows a view passes, tab-separated text for the clipboard, and an
// atomic save that leaves the old file whole when it cannot write.
#include "deterministictestmain.h"
#include "text/tablecsv.h"

#include <QFile>
#include <QStandardItemModel>
#include <QTemporaryDir>

using namespace dimscope;

namespace {

// leaf, shape, note: the cells a result table has, with every character CSV must quote.
void fill(QStandardItemModel &model)
{
    model.setHorizontalHeaderLabels({QStringLiteral("Leaf"), QStringLiteral("Shape"), QStringLiteral("Note")});
    model.appendRow({new QStandardItem(QStringLiteral("input_ids")), new QStandardItem(QStringLiteral("batch × q_len")),
                     new QStandardItem(QStringLiteral("ok"))});
    model.appendRow({new QStandardItem(QStringLiteral("past_key_values.key_cache[0]")),
                     new QStandardItem(QStringLiteral("2, 4, past_len, 8")),
                     new QStandardItem(QStringLiteral("torch said \"past_len = 0\"\nthen failed"))});
    model.appendRow({new QStandardItem(QStringLiteral("x")), new QStandardItem(QStringLiteral("∞")),
                     new QStandardItem(QStringLiteral("tab\there"))});
}

} // namespace

class TestTableCsv : public QObject
{
    Q_OBJECT
private slots:
    void quotesWhatRfc4180Quotes();
    void writesOnlyTheRowsGiven();
    void tabSeparatedKeepsOneLinePerRow();
    void savesAtomicallyAsUtf8();
};

void TestTableCsv::quotesWhatRfc4180Quotes()
{
    QStandardItemModel model;
    fill(model);
    QCOMPARE(TableCsv::csv(model),
             QStringLiteral("Leaf,Shape,Note\r\n"
                            "input_ids,batch × q_len,ok\r\n"
                            "past_key_values.key_cache[0],\"2, 4, past_len, 8\",\"torch said \"\"past_len = 0\"\"\nthen failed\"\r\n"
                            "x,∞,tab\there\r\n"));
    QCOMPARE(TableCsv::csvField(QStringLiteral("a\rb")), QStringLiteral("\"a\rb\""));
    QCOMPARE(TableCsv::csvField(QString()), QString());
}

void TestTableCsv::writesOnlyTheRowsGiven()
{
    QStandardItemModel model;
    fill(model);
    QCOMPARE(TableCsv::csv(model, {2}), QStringLiteral("Leaf,Shape,Note\r\nx,∞,tab\there\r\n"));
    QCOMPARE(TableCsv::csv(model, {}), QStringLiteral("Leaf,Shape,Note\r\n")); // a filter that hides every row
}

void TestTableCsv::tabSeparatedKeepsOneLinePerRow()
{
    QStandardItemModel model;
    fill(model);
    QCOMPARE(TableCsv::tabSeparated(model, {1, 2}),
             QStringLiteral("Leaf\tShape\tNote\n"
                            "past_key_values.key_cache[0]\t2, 4, past_len, 8\ttorch said \"past_len = 0\" then failed\n"
                            "x\t∞\ttab here\n"));
}

void TestTableCsv::savesAtomicallyAsUtf8()
{
    QStandardItemModel model;
    fill(model);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("table.csv"));
    QString error;
    QVERIFY2(TableCsv::save(model, TableCsv::allRows(model), path, &error), qPrintable(error));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(file.readAll()), TableCsv::csv(model));
    file.close();
    // A path that cannot be written: an error naming it; nothing half-written.
    const QString bad = dir.filePath(QStringLiteral("missing-folder/table.csv"));
    QVERIFY(!TableCsv::save(model, TableCsv::allRows(model), bad, &error));
    QVERIFY2(error.contains(bad), qPrintable(error));
    QVERIFY(!QFile::exists(bad));
}

DIMSCOPE_GUILESS_TEST_MAIN(TestTableCsv)
#include "tst_tablecsv.moc"
