// SPDX-License-Identifier: GPL-3.0-or-later
#include "capture/capturereader.h"
#include "models/dimcolours.h"
#include "dimedits.h"
#include "models/inputsdecorator.h"
#include "inputsview.h"
#include "models/inputsfilterproxy.h"
#include "models/inputsmodel.h"
#include "document/projectdocument.h"
#include "inference/shapeinference.h"

#include <QAbstractItemModelTester>
#include <QLabel>
#include <QLineEdit>
#include <QTreeView>
#include "deterministictestmain.h"

using namespace dimscope;

// The inputs tree on the bundled demo capture (6 leaves: input_ids, attention_mask and
// 4 cache tensors under past_key_values): the filter's count and no-match message, what
// clearing it keeps, and the colours of dims that are not a Dim (issue 13, item 11).
class TestInputsFilter : public QObject
{
    Q_OBJECT
private slots:
    void filterCountsAndSaysWhenNothingMatches();
    void clearingTheFilterKeepsExpansionAndSelection();
    void staticButVaryingDimsAreGreyNotADimColour();
    void rowsKeepTheirHeightWhenAViolationAppears();

private:
    static QString demoCapture() { return QStringLiteral(DIMSCOPE_SOURCE_DIR "/resources/demo/demo-capture.safetensors"); }
    static void load(ProjectDocument &document)
    {
        QString error;
        const std::optional<Capture> capture = CaptureReader::open(demoCapture(), &error);
        QVERIFY2(capture, qPrintable(error));
        document.setCapture(demoCapture(), *capture, ShapeInference::infer(*capture));
    }
    static QModelIndex proxyIndex(InputsView &view, const QString &path)
    {
        return view.proxy()->mapFromSource(view.model()->indexForPath(path));
    }
};

void TestInputsFilter::filterCountsAndSaysWhenNothingMatches()
{
    // Given the demo in the inputs view
    ProjectDocument document;
    InputsView view;
    view.setDocument(&document);
    QAbstractItemModelTester tester(view.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    load(document);
    view.resize(700, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    auto *filter = view.findChild<QLineEdit *>(QStringLiteral("inputsFilter"));
    auto *count = view.findChild<QLabel *>(QStringLiteral("inputsFilterCount"));
    auto *noMatch = view.findChild<QLabel *>(QStringLiteral("inputsNoMatch"));
    QVERIFY(filter && count && noMatch);
    QVERIFY(!count->isVisible() && !noMatch->isVisible());

    // When "KEY_CACHE" is typed (any case)
    filter->setFocus();
    QTest::keyClicks(filter, QStringLiteral("KEY_CACHE"));
    // Then (after the debounce) the count says how many leaves are left
    QTRY_COMPARE(count->text(), QStringLiteral("2 of 6 leaves shown"));
    QVERIFY(count->isVisible());
    QVERIFY(!noMatch->isVisible());

    // When nothing matches
    filter->selectAll();
    QTest::keyClicks(filter, QStringLiteral("xyz"));
    // Then the tree says so over its empty viewport
    QTRY_COMPARE(count->text(), QStringLiteral("0 of 6 leaves shown"));
    QVERIFY(noMatch->isVisible());
    QCOMPARE(noMatch->text(), QStringLiteral("No leaf matches “xyz”"));
    QVERIFY(view.tree()->viewport()->rect().contains(noMatch->geometry()));

    // When the filter is cleared with Escape, the message and the count go
    QTest::keyClick(filter, Qt::Key_Escape);
    QVERIFY(!noMatch->isVisible());
    QVERIFY(!count->isVisible());
}

void TestInputsFilter::clearingTheFilterKeepsExpansionAndSelection()
{
    // Given the demo with past_key_values collapsed and attention_mask selected
    ProjectDocument document;
    InputsView view;
    view.setDocument(&document);
    load(document);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QModelIndex cache = proxyIndex(view, QStringLiteral("past_key_values"));
    QVERIFY(cache.isValid());
    view.tree()->collapse(cache);
    const QModelIndex keys = proxyIndex(view, QStringLiteral("past_key_values.key_cache"));
    view.tree()->setCurrentIndex(proxyIndex(view, QStringLiteral("attention_mask")));

    // When a filter that hides attention_mask and opens the cache is typed, then cleared
    auto *filter = view.filterEdit();
    QTest::keyClicks(filter, QStringLiteral("value_cache"));
    QTRY_VERIFY(!proxyIndex(view, QStringLiteral("attention_mask")).isValid());
    QVERIFY(view.tree()->isExpanded(proxyIndex(view, QStringLiteral("past_key_values"))));
    QTest::keyClick(filter, Qt::Key_Escape);

    // Then the tree is as the user left it: the cache collapsed, attention_mask current
    QVERIFY(proxyIndex(view, QStringLiteral("attention_mask")).isValid());
    QVERIFY(!view.tree()->isExpanded(proxyIndex(view, QStringLiteral("past_key_values"))));
    QCOMPARE(view.tree()->currentIndex(), proxyIndex(view, QStringLiteral("attention_mask")));
    QCOMPARE(view.model()->nodeOf(view.proxy()->mapToSource(view.tree()->currentIndex())), view.currentNode());
    Q_UNUSED(keys);
}

void TestInputsFilter::staticButVaryingDimsAreGreyNotADimColour()
{
    // Given the demo with input_ids dim 1 (seq_len: 5, 1, 1, 1, 3, 1) made static, and
    // attention_mask dim 1 made Dim.AUTO
    ProjectDocument document;
    InputsView view;
    view.setDocument(&document);
    load(document);
    QCOMPARE(dimedits::assign(&document, QStringLiteral("input_ids"), 1, DimAssignment::makeStatic()), QString());
    QCOMPARE(dimedits::assign(&document, QStringLiteral("attention_mask"), 1, DimAssignment::makeAuto()), QString());

    // Then that dim is drawn grey and labelled as varying, not in any Dim's colour
    const QModelIndex shape = view.model()->indexForPath(QStringLiteral("input_ids"), InputsModel::ShapeColumn);
    const QVariantList colours = shape.data(InputsModel::DimColoursRole).toList();
    const QColor staticVarying = colours.value(1).value<QColor>();
    QCOMPARE(staticVarying, DimColours::staticVaryingColour());
    QCOMPARE(shape.data(InputsModel::DimLabelsRole).toStringList().value(1), InputsDecorator::staticVaryingLabel());
    // The batch dim (static in the demo and the same size in every call) stays plain
    QVERIFY(!colours.value(0).value<QColor>().isValid());
    const QColor autoColour = view.model()->indexForPath(QStringLiteral("attention_mask"), InputsModel::ShapeColumn)
                                  .data(InputsModel::DimColoursRole).toList().value(1).value<QColor>();
    QCOMPARE(autoColour, DimColours::unnamedDynamicColour());
    for (const DimDecl &d : document.constraints().dims()) {
        QVERIFY2(document.dimColours().colour(d.name) != staticVarying, qPrintable(d.name));
        QVERIFY2(document.dimColours().colour(d.name) != autoColour, qPrintable(d.name));
    }
    // nor in the colour any of the first 12 Dims would get
    ConstraintSet many;
    for (int i = 0; i < 12; ++i)
        QCOMPARE(many.addRootDim(QStringLiteral("d%1").arg(i)), QString());
    DimColours palette;
    palette.update(many);
    for (int i = 0; i < 12; ++i) {
        QVERIFY(palette.colour(QStringLiteral("d%1").arg(i)) != staticVarying);
        QVERIFY(palette.colour(QStringLiteral("d%1").arg(i)) != autoColour);
    }
}

// A violation's icon on a leaf does not change the tree's row height (issue 28 problem
// 10: every row jumped when the first icon appeared).
void TestInputsFilter::rowsKeepTheirHeightWhenAViolationAppears()
{
    ProjectDocument document;
    InputsView view;
    view.setDocument(&document);
    load(document);
    view.resize(900, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const auto rowHeight = [&] { return view.tree()->visualRect(proxyIndex(view, QStringLiteral("input_ids"))).height(); };
    const int before = rowHeight();
    QVERIFY(before > 0);

    // When a range makes input_ids violate (seq_len at most 2; the demo has 5)
    QCOMPARE(document.edit(QStringLiteral("narrow"),
                           [](ConstraintSet &s) { return s.setRange(QStringLiteral("seq_len"), std::nullopt, 2); }),
             QString());
    const QModelIndex name = proxyIndex(view, QStringLiteral("input_ids"));
    QVERIFY(name.data(Qt::DecorationRole).isValid()); // the violation's icon
    QCoreApplication::processEvents();

    // Then the rows are as high as before
    QCOMPARE(rowHeight(), before);
}

QTEST_MAIN(TestInputsFilter)
#include "tst_inputsfilter.moc"
