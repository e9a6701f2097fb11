// SPDX-License-Identifier: GPL-3.0-or-later
#include "kvcapture.h"
#include "modeldump.h"
#include "models/inputsfilterproxy.h"
#include "models/inputsmodel.h"

#include <QAbstractItemModelTester>
#include <QGuiApplication>
#include <QSignalSpy>
#include "deterministictestmain.h"

using namespace dimscope;

class TestInputsModel : public QObject
{
    Q_OBJECT
private slots:
    void treeStructure();
    void shapeText_data();
    void shapeText();
    void absentInSomeCalls();
    void tooltipListsEveryCall();
    void dimColoursAndLabels();
    void leafTheConstraintsLeaveOutIsPlain();
    void filterOnKeyPaths_data();
    void filterOnKeyPaths();
    void largeCache();
    void resetToEmpty();
};

void TestInputsModel::treeStructure()
{
    // Given a model under the tester before anything is in it
    InputsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    // When a prefill + two decode steps with a two-layer DynamicCache are shown
    model.setCapture(test::kvCapture(3, 2));
    // Then the arguments (in forward's order, though the prefill lacks the cache), the
    // cache's lists and their layers appear, merged over calls
    const QString expected = QStringLiteral(
        "input_ids | int64 | 2 x [1..5]\n"
        "attention_mask | int64 | 2 x [5..7]\n"
        "past_key_values | DynamicCache\n"
        "  key_cache | list[2]\n"
        "    key_cache[0] | float32 | 2 x 4 x [5..6] x 8\n"
        "    key_cache[1] | float32 | 2 x 4 x [5..6] x 8\n"
        "  value_cache | list[2]\n"
        "    value_cache[0] | float32 | 2 x 4 x [5..6] x 8\n"
        "    value_cache[1] | float32 | 2 x 4 x [5..6] x 8\n"
        "pixel_values | float32 | 2 x 3 x 8 x 8\n"
        "use_cache | bool | True\n");
    QCOMPARE(test::dumpModel(&model), expected);
    // The key paths are the capture format's, as the reader gives them to leaves
    const QModelIndex v1 = model.indexForPath(QStringLiteral("past_key_values.value_cache[1]"));
    QVERIFY(v1.isValid());
    QCOMPARE(v1.data().toString(), QStringLiteral("value_cache[1]"));
    QCOMPARE(v1.data(Qt::ToolTipRole).toString(), QStringLiteral("past_key_values.value_cache[1]\npresent in 2 of 3 calls"));
    QCOMPARE(v1.data(InputsModel::KeyPathRole).toString(), QStringLiteral("past_key_values.value_cache[1]"));
}

void TestInputsModel::shapeText_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("shape");
    QTest::addColumn<QVariantList>("dynamic");
    QTest::newRow("static") << "pixel_values" << "2 x 3 x 8 x 8" << QVariantList{false, false, false, false};
    QTest::newRow("seq") << "input_ids" << "2 x [1..5]" << QVariantList{false, true};
    QTest::newRow("cache") << "past_key_values.key_cache[0]" << "2 x 4 x [5..8] x 8"
                           << QVariantList{false, false, true, false};
}

void TestInputsModel::shapeText()
{
    QFETCH(QString, path);
    QFETCH(QString, shape);
    QFETCH(QVariantList, dynamic);
    InputsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCapture(test::kvCapture(5, 1));
    const QModelIndex index = model.indexForPath(path, InputsModel::ShapeColumn);
    QVERIFY(index.isValid());
    QCOMPARE(index.data().toString(), shape);
    QCOMPARE(index.data(InputsModel::DynamicDimsRole).toList(), dynamic);
    QCOMPARE(index.data(InputsModel::IsDynamicRole).toBool(), dynamic.contains(true));
}

void TestInputsModel::absentInSomeCalls()
{
    InputsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCapture(test::kvCapture(4, 1));
    QCOMPARE(model.indexForPath(QStringLiteral("pixel_values")).data(InputsModel::PresentCallsRole).toInt(), 1);
    QCOMPARE(model.indexForPath(QStringLiteral("past_key_values.key_cache[0]")).data(InputsModel::PresentCallsRole).toInt(), 3);
    QCOMPARE(model.indexForPath(QStringLiteral("input_ids")).data(InputsModel::PresentCallsRole).toInt(), 4);
    // Partly present leaves are set apart (italic); fully present ones are not
    QVERIFY(model.indexForPath(QStringLiteral("pixel_values")).data(Qt::FontRole).value<QFont>().italic());
    QVERIFY(!model.indexForPath(QStringLiteral("input_ids")).data(Qt::FontRole).isValid());
}

void TestInputsModel::tooltipListsEveryCall()
{
    InputsModel model;
    model.setCapture(test::kvCapture(3, 1));
    QCOMPARE(model.indexForPath(QStringLiteral("past_key_values.key_cache[0]"), InputsModel::ShapeColumn)
                 .data(Qt::ToolTipRole)
                 .toString(),
             QStringLiteral("call 0: absent\ncall 1: float32[2 x 4 x 5 x 8]\ncall 2: float32[2 x 4 x 6 x 8]"));
    QCOMPARE(model.indexForPath(QStringLiteral("use_cache"), InputsModel::ShapeColumn).data(Qt::ToolTipRole).toString(),
             QStringLiteral("call 0: True\ncall 1: True\ncall 2: True"));
}

void TestInputsModel::dimColoursAndLabels()
{
    InputsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCapture(test::kvCapture(3, 1));
    const QString path = QStringLiteral("input_ids");
    const QModelIndex shape = model.indexForPath(path, InputsModel::ShapeColumn);
    // Before any Dim is known, dynamic dims use the default accent, static dims none
    QVariantList colours = shape.data(InputsModel::DimColoursRole).toList();
    QCOMPARE(colours.size(), 2);
    QVERIFY(!colours.at(0).value<QColor>().isValid());
    QCOMPARE(colours.at(1).value<QColor>(), InputsModel::defaultDynamicColour());

    // Once the constraint set's colours are known, an edit repaints only the rows it changes
    model.setDimColours({{path, {QColor(), QColor(Qt::red)}}});
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setDimColours({{path, {QColor(), QColor(Qt::blue)}}});
    model.setDimLabels({{path, {QStringLiteral("batch"), QStringLiteral("seq_len")}}});
    QCOMPARE(changed.size(), 2);
    QCOMPARE(changed.first().at(0).toModelIndex(), model.indexForPath(path, 0));
    colours = shape.data(InputsModel::DimColoursRole).toList();
    QCOMPARE(colours.at(1).value<QColor>(), QColor(Qt::blue));
    QCOMPARE(model.indexForPath(path, InputsModel::ConstraintColumn).data().toString(), QStringLiteral("batch, seq_len"));
    QCOMPARE(shape.data(InputsModel::DimLabelsRole).toStringList(), (QStringList{QStringLiteral("batch"), QStringLiteral("seq_len")}));
}

void TestInputsModel::leafTheConstraintsLeaveOutIsPlain()
{
    // Given the capture's tree under the tester, with input_ids' dim 1 in the "dynamic" accent
    InputsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCapture(test::kvCapture(3, 1));
    const QString listed = QStringLiteral("attention_mask");
    const QString leftOut = QStringLiteral("input_ids");
    const QModelIndex leftOutShape = model.indexForPath(leftOut, InputsModel::ShapeColumn);
    QCOMPARE(leftOutShape.data(InputsModel::DimColoursRole).toList().at(1).value<QColor>(), InputsModel::defaultDynamicColour());

    // When the constraint set's colours arrive and the set lists attention_mask only
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setDimColours({{listed, {QColor(), QColor(Qt::blue)}}});

    // Then input_ids, exported static, is repainted plain and its tooltip says why
    bool repainted = false;
    for (const QList<QVariant> &args : std::as_const(changed))
        repainted = repainted || args.at(0).toModelIndex() == model.indexForPath(leftOut, 0);
    QVERIFY(repainted);
    const QVariantList plain = leftOutShape.data(InputsModel::DimColoursRole).toList();
    QCOMPARE(plain.size(), 2);
    QVERIFY(!plain.at(0).value<QColor>().isValid());
    QVERIFY(!plain.at(1).value<QColor>().isValid());
    const QString tip = leftOutShape.data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.startsWith(QStringLiteral("Not in the constraint set: exported with every dim static.\n\ncall 0: ")), qPrintable(tip));
    // The listed leaf keeps its Dim's colour and its plain per-call tooltip
    const QModelIndex listedShape = model.indexForPath(listed, InputsModel::ShapeColumn);
    QCOMPARE(listedShape.data(InputsModel::DimColoursRole).toList().at(1).value<QColor>(), QColor(Qt::blue));
    QVERIFY(listedShape.data(Qt::ToolTipRole).toString().startsWith(QStringLiteral("call 0: ")));
    // A leaf that is the same in every call needs no note
    QVERIFY(model.indexForPath(QStringLiteral("pixel_values"), InputsModel::ShapeColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .startsWith(QStringLiteral("call 0: ")));

    // When another capture is opened, no constraint set is known yet: the accent is back
    model.setCapture(test::kvCapture(3, 1));
    QCOMPARE(model.indexForPath(leftOut, InputsModel::ShapeColumn).data(InputsModel::DimColoursRole).toList().at(1).value<QColor>(),
             InputsModel::defaultDynamicColour());
}

void TestInputsModel::filterOnKeyPaths_data()
{
    QTest::addColumn<QString>("filter");
    QTest::addColumn<QString>("expected");
    QTest::newRow("layer") << "value_cache[1" << "past_key_values | DynamicCache\n"
                                                 "  value_cache | list[3]\n"
                                                 "    value_cache[1] | float32 | 2 x 4 x [5..6] x 8\n";
    QTest::newRow("case-insensitive, top level") << "INPUT_IDS" << "input_ids | int64 | 2 x [1..5]\n";
    QTest::newRow("parent matches too") << "past_key_values.key_cache"
                                        << "past_key_values | DynamicCache\n"
                                           "  key_cache | list[3]\n"
                                           "    key_cache[0] | float32 | 2 x 4 x [5..6] x 8\n"
                                           "    key_cache[1] | float32 | 2 x 4 x [5..6] x 8\n"
                                           "    key_cache[2] | float32 | 2 x 4 x [5..6] x 8\n";
    QTest::newRow("nothing") << "no_such_input" << "";
}

void TestInputsModel::filterOnKeyPaths()
{
    QFETCH(QString, filter);
    QFETCH(QString, expected);
    InputsModel model;
    InputsFilterProxy proxy;
    proxy.setSourceModel(&model);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCapture(test::kvCapture(3, 3));
    proxy.setFilterFixedString(filter);
    QCOMPARE(test::dumpModel(&proxy), expected);
    proxy.setFilterFixedString(QString());
    QCOMPARE(test::dumpModel(&proxy), test::dumpModel(&model));
}

void TestInputsModel::largeCache()
{
    // 2 x 8,000 cache layers over 3 calls: the shape of the 33,000-leaf benchmark
    InputsModel model;
    model.setCapture(test::kvCapture(3, 8000));
    const QModelIndex cache = model.indexForPath(QStringLiteral("past_key_values.value_cache"));
    QCOMPARE(model.rowCount(cache), 8000);
    QCOMPARE(model.index(7999, 0, cache).data().toString(), QStringLiteral("value_cache[7999]"));
    QCOMPARE(model.index(7999, 0, cache).data(InputsModel::KeyPathRole).toString(),
             QStringLiteral("past_key_values.value_cache[7999]"));
    QCOMPARE(model.loaded()->tree.leafCount(), 4 + 16000);
}

void TestInputsModel::resetToEmpty()
{
    InputsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setCapture(test::kvCapture(2, 1));
    QVERIFY(model.rowCount() > 0);
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    model.setCapture(Capture()); // no calls at all
    QCOMPARE(model.rowCount(), 0);
}

// QGuiApplication: the models need fonts and colours, no widget.
DIMSCOPE_TEST_MAIN_IMPL(TestInputsModel, QGuiApplication, {})
#include "tst_inputsmodel.moc"
